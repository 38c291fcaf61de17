/**
 * Opcodes. Requests are odd, their replies the next even number; ERROR answers any request
 * the Manager could not carry out (the connection stays open unless the frame itself was bad).
 */
export const OPCODE = {
  hello: 1,
  welcome: 2,
  lookup: 3,
  lookupResult: 4,
  save: 5,
  saveResult: 6,
  restore: 7,
  restoreResult: 8,
  release: 9,
  released: 10,
  registerPages: 11,
  pagesRegistered: 12,
  cancel: 13,
  cancelled: 14,
  status: 15,
  statusResult: 16,
  requests: 17,
  requestsResult: 18,
  echo: 19,
  echoed: 20,
  /** An operator's handshake (the CLI): no engine profile, only status, records and echo. */
  operator: 21,
  /**
   * An interim reply to LOOKUP, same request id, sent when the ticket is still pending: it names
   * the ticket (so the client can cancel it) before the final LOOKUP_RESULT.
   */
  lookupPending: 22,
  /** LOOKUP in the fixed binary layout of protocol/lookup-binary.ts (protocol 3); answered by LOOKUP_BINARY_RESULT or ERROR. */
  lookupBinary: 23,
  lookupBinaryResult: 24,
  /**
   * RELEASE of one ticket as 8 bytes (protocol/release-binary.ts, protocol 4). Answered only when
   * refused (ERROR): a release carried out has no reply, so 26 is never sent.
   */
  releaseBinary: 25,
  /** The handshake failed: version mismatch, malformed or rejected profile. Closed after. */
  refused: 98,
  error: 99,
} as const;

export type OpcodeName = keyof typeof OPCODE;
export const OPCODE_NAMES: ReadonlyMap<number, OpcodeName> = new Map(Object.entries(OPCODE).map(([k, v]) => [v, k as OpcodeName]));
