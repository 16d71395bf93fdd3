/** For tests that start servers of their own: a port of 127.0.0.1 free just now. */
import { createServer } from 'node:net';

/** A free port (the OS picks it; another process could take it after). */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('No free port.'))));
    });
  });
}
