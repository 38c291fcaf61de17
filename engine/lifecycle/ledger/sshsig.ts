import { type KeyObject, createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';

/**
 * OpenSSH signatures (PROTOCOL.sshsig) with ed25519 keys, on node:crypto: what `ssh-keygen -Y
 * sign` writes and `ssh-keygen -Y verify` reads, so engineers sign evidence with the ssh keys they
 * have and check it with the tool they know. Only the wire format is here; what is trusted is
 * `trust.ts`.
 */

/** Every evidence signature is made in this namespace (`ssh-keygen -Y verify -n evidence-ledger`). */
export const SIGNATURE_NAMESPACE = 'evidence-ledger';
const MAGIC = Buffer.from('SSHSIG');
const KEY_TYPE = 'ssh-ed25519';
const HASH = 'sha512';

/** An ed25519 public key as OpenSSH carries it: the wire blob (`string "ssh-ed25519" string key`). */
export interface SshPublicKey {
  blob: Buffer;
  /** The 32 key bytes. */
  raw: Buffer;
  /** `SHA256:<base64, no padding>`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

/** A signing key read from an OpenSSH private key file. */
export interface SshSigningKey {
  publicKey: SshPublicKey;
  privateKey: KeyObject;
}

function sshString(bytes: Buffer | string): Buffer {
  const body = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** Reads SSH wire fields from a buffer; every read is bounds-checked (a short or garbled blob throws `WireError`). */
class WireReader {
  private at = 0;
  constructor(private readonly data: Buffer) {}
  uint32(): number {
    if (this.at + 4 > this.data.length) throw new WireError('truncated');
    const v = this.data.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }
  bytes(n: number): Buffer {
    if (n < 0 || this.at + n > this.data.length) throw new WireError('truncated');
    const v = this.data.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  string(): Buffer {
    return this.bytes(this.uint32());
  }
  text(): string {
    return this.string().toString('latin1');
  }
  get done(): boolean {
    return this.at === this.data.length;
  }
}

export class WireError extends Error {}

/** The public key of an OpenSSH wire blob (the base64 of an `allowed_signers` or `.pub` line); throws `WireError`. */
export function publicKeyFromBlob(blob: Buffer): SshPublicKey {
  const r = new WireReader(blob);
  const type = r.text();
  if (type !== KEY_TYPE) throw new WireError(`key type ${type} (only ssh-ed25519 is supported)`);
  const raw = r.string();
  if (raw.length !== 32 || !r.done) throw new WireError('not an ed25519 public key');
  return { blob: Buffer.from(blob), raw: Buffer.from(raw), fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}` };
}

const b64url = (b: Buffer) => b.toString('base64url');

const keyObjects = new Map<string, KeyObject>();
function nodePublicKey(key: SshPublicKey): KeyObject {
  let k = keyObjects.get(key.fingerprint);
  if (!k) {
    k = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(key.raw) }, format: 'jwk' });
    keyObjects.set(key.fingerprint, k);
  }
  return k;
}

/**
 * Reads an unencrypted OpenSSH private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`, as
 * `ssh-keygen -t ed25519` writes it). Throws `WireError` naming what is wrong: an encrypted key, a
 * key of another type, a file that is not one.
 */
export function parseOpenSshPrivateKey(text: string): SshSigningKey {
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!m) throw new WireError('not an OpenSSH private key (no BEGIN OPENSSH PRIVATE KEY block)');
  const data = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
  const magic = Buffer.from('openssh-key-v1\0');
  if (data.length < magic.length || !data.subarray(0, magic.length).equals(magic)) throw new WireError('not an openssh-key-v1 key');
  const r = new WireReader(data.subarray(magic.length));
  const cipher = r.text();
  const kdf = r.text();
  r.string();
  if (cipher !== 'none' || kdf !== 'none') throw new WireError('the key is encrypted (passphrase)');
  if (r.uint32() !== 1) throw new WireError('the file holds more than one key');
  const publicKey = publicKeyFromBlob(Buffer.from(r.string()));
  const p = new WireReader(r.string());
  if (p.uint32() !== p.uint32()) throw new WireError('the private section does not decode');
  if (p.text() !== KEY_TYPE) throw new WireError('not an ed25519 key');
  const pub = p.string();
  const secret = p.string();
  if (secret.length !== 64 || !pub.equals(publicKey.raw) || !secret.subarray(32).equals(publicKey.raw)) throw new WireError('the private key does not match its public key');
  const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(publicKey.raw), d: b64url(Buffer.from(secret.subarray(0, 32))) }, format: 'jwk' });
  return { publicKey, privateKey };
}

function signedData(message: Buffer | string, namespace: string): Buffer {
  const digest = createHash(HASH).update(message).digest();
  return Buffer.concat([MAGIC, sshString(namespace), sshString(''), sshString(HASH), sshString(digest)]);
}

/** An SSHSIG blob (base64) over `message`: the body of an armored `-----BEGIN SSH SIGNATURE-----` file. */
export function signMessage(key: SshSigningKey, message: string, namespace = SIGNATURE_NAMESPACE): string {
  const signature = sign(null, signedData(message, namespace), key.privateKey);
  const version = Buffer.alloc(4);
  version.writeUInt32BE(1);
  return Buffer.concat([MAGIC, version, sshString(key.publicKey.blob), sshString(namespace), sshString(''), sshString(HASH), sshString(Buffer.concat([sshString(KEY_TYPE), sshString(signature)]))]).toString('base64');
}

/** The parts of an SSHSIG blob; throws `WireError` when it is not one. */
export function parseSignature(base64: string): { publicKey: SshPublicKey; namespace: string; hash: string; signature: Buffer } {
  const data = Buffer.from(base64, 'base64');
  if (data.length < MAGIC.length || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw new WireError('not an SSHSIG signature');
  const r = new WireReader(data.subarray(MAGIC.length));
  if (r.uint32() !== 1) throw new WireError('unknown SSHSIG version');
  const publicKey = publicKeyFromBlob(Buffer.from(r.string()));
  const namespace = r.text();
  r.string();
  const hash = r.text();
  const s = new WireReader(r.string());
  if (s.text() !== KEY_TYPE) throw new WireError('not an ed25519 signature');
  const signature = s.string();
  if (signature.length !== 64 || !r.done || !s.done) throw new WireError('malformed signature');
  return { publicKey, namespace, hash, signature: Buffer.from(signature) };
}

/** Whether `signature` (parsed SSHSIG) is `key`'s over `message` in `namespace`. */
export function verifyMessage(parsed: ReturnType<typeof parseSignature>, message: string, namespace = SIGNATURE_NAMESPACE): boolean {
  if (parsed.namespace !== namespace || (parsed.hash !== 'sha512' && parsed.hash !== 'sha256')) return false;
  const digest = createHash(parsed.hash).update(message).digest();
  const data = Buffer.concat([MAGIC, sshString(namespace), sshString(''), sshString(parsed.hash), sshString(digest)]);
  return verify(null, data, nodePublicKey(parsed.publicKey), parsed.signature);
}

/** The armored form `ssh-keygen -Y verify -s FILE` reads. */
export function armorSignature(base64: string): string {
  const lines = base64.match(/.{1,70}/g) ?? [];
  return `-----BEGIN SSH SIGNATURE-----\n${lines.join('\n')}\n-----END SSH SIGNATURE-----\n`;
}
