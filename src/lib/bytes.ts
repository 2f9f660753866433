// Sizes in words for messages people read: "812 bytes", "4 KiB", "3.4 KiB", "20 MiB".

const KIB = 1024;
const MIB = 1024 * 1024;

const oneDecimal = (n: number) => `${Math.round(n * 10) / 10}`;

export function byteSize(bytes: number): string {
  if (bytes < KIB) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  // Rounded up to 1024 KiB is 1 MiB.
  if (Math.round((bytes / KIB) * 10) < 10240) return `${oneDecimal(bytes / KIB)} KiB`;
  return `${oneDecimal(bytes / MIB)} MiB`;
}

/** Two sizes to compare (a limit and what passed it): in bytes when they would read the same rounded. */
export function byteSizes(a: number, b: number): [string, string] {
  const [x, y] = [byteSize(a), byteSize(b)];
  if (x !== y || a === b) return [x, y];
  return [`${a.toLocaleString("en-US")} bytes`, `${b.toLocaleString("en-US")} bytes`];
}
