/**
 * The binary RELEASE (protocol 4): the scheduler gives back a ticket it did not select, at
 * almost every step, and never waits for the answer. So the request is the ticket alone and a
 * release that is carried out is not answered at all: no reply frame to write or to read past.
 * A refused one (a ticket not open in this session) is answered with ERROR (OKV7107) under the
 * request's id, as a JSON RELEASE's is; a payload that is not one is ERROR (OKV7151) and closes
 * the connection.
 *
 * Request (RELEASE_BINARY payload, RELEASE_BYTES): 0 u32 ticket low, 4 u32 ticket high.
 */
export const RELEASE_BYTES = 8;

/** A ticket id as a binary RELEASE payload (clients; the specs). */
export function encodeReleaseRequest(ticket: number): Buffer {
  if (!Number.isSafeInteger(ticket) || ticket < 0) throw new RangeError(`a ticket is a non-negative safe integer, got ${ticket}`);
  const out = Buffer.allocUnsafe(RELEASE_BYTES);
  out.writeUInt32LE(ticket % 0x1_0000_0000, 0);
  out.writeUInt32LE(Math.floor(ticket / 0x1_0000_0000), 4);
  return out;
}

/** The ticket a binary RELEASE names, or why the payload is not one. */
export function decodeReleaseRequest(p: Buffer): number | { problem: string } {
  if (p.length !== RELEASE_BYTES) return { problem: `${p.length} bytes, not ${RELEASE_BYTES}` };
  const high = p.readUInt32LE(4);
  if (high > 0x1f_ffff) return { problem: 'the ticket is past 2^53' };
  return high * 0x1_0000_0000 + p.readUInt32LE(0);
}
