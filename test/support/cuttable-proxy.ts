/**
 * Test support: a TCP proxy in front of a local server whose open connections can be cut at
 * once, so a browser sees its connection drop mid-stream (and reconnects).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy to 127.0.0.1:`port` whose open connections can be cut at once. */
export async function cuttableProxy(port: string) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
