// Binds a local server to 127.0.0.1 (port 0: any free one) and answers its port, or fails
// with the server's name. Shared by the stand-ins the local stack starts.
import type { Server } from "node:http";

export async function listenLocal(server: Server, port: number, name: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error(`${name} did not bind`);
  return addr.port;
}
