/**
 * Asked once per tab when the server wants a key (`SERVICE_API_KEYS`) or a token: it goes to this
 * tab's sessionStorage and the page reloads to call the API with it. Closing the tab forgets it.
 */
import { keyWasRefused, saveKey } from './api.js';
import { html, useEffect, useRef, useState } from './vendor/preact-htm.mjs';

export function KeyPrompt() {
  const [key, setKey] = useState('');
  const dialog = useRef(null);
  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
  }, []);
  const submit = (event) => {
    event.preventDefault();
    if (key.trim() === '') return;
    saveKey(key.trim());
    window.location.reload();
  };
  return html`
    <dialog ref=${dialog} class="key-prompt" aria-labelledby="key-title"
      onCancel=${(event) => event.preventDefault()}>
      <form onSubmit=${submit}>
        <h2 id="key-title">API key or token</h2>
        <p>This service asks for an API key (<code>SERVICE_API_KEYS</code>) or a token. It is kept
          for this tab only and sent as <code>Authorization: Bearer</code>; what the page offers
          follows the roles it grants.</p>
        ${keyWasRefused() ? html`<p class="error" role="alert">That key was refused. Try another.</p>` : null}
        <label class="field">Key or token <input type="password" name="key" autocomplete="off" required autofocus
          value=${key} onInput=${(event) => setKey(event.currentTarget.value)} /></label>
        <div class="buttons"><button type="submit" class="primary">Use this key</button></div>
      </form>
    </dialog>
  `;
}
