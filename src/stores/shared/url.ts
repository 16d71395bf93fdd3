/**
 * Store URLs carry credentials (`redis://:secret@host`), and error messages must name the
 * URL so an operator can tell which server failed. This keeps the two compatible.
 */

/**
 * The URL with its password replaced by `***`, for messages and logs.
 *
 * @example
 * ```ts
 * redactUrl('redis://app:s3cret@cache:6379/0'); // 'redis://app:***@cache:6379/0'
 * ```
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const inQuery = parsed.searchParams.has('password');
    if (parsed.password === '' && !inQuery) return url;
    if (parsed.password !== '') parsed.password = '***';
    if (inQuery) parsed.searchParams.set('password', '***');
    return parsed.href;
  } catch {
    // Not parseable: hide anything between '//' and '@' that looks like user:password.
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@');
  }
}
