import type { EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { canonicalJson, sha256 } from './canonical.js';
import { readRegularText } from './regular.js';
import { SIGNATURE_NAMESPACE, type SshPublicKey, type SshSigningKey, WireError, parseOpenSshPrivateKey, parseSignature, publicKeyFromBlob, signMessage, verifyMessage } from './sshsig.js';

/**
 * The trusted signers of a registry: `<registry>/evidence/allowed_signers`, one signer a line in
 * OpenSSH form (`PRINCIPALS [namespaces="..."] ssh-ed25519 BASE64 [COMMENT]`, the file
 * `ssh-keygen -Y verify -f` reads), where the principals are the actor names the key may record
 * under. One comment line anchors the unsigned history:
 *
 *     # evidence-ledger unsigned-history SEQ HASH
 *
 * Records 1..SEQ may be unsigned and record SEQ must carry HASH; every later record must be signed
 * by a trusted key for its actor. Without the file nothing is trusted and nothing is required: the
 * ledger's chain alone protects it (a re-hashed forgery goes unnoticed) and independence falls
 * back to actor names.
 */
export interface Trust {
  /** The file exists: signatures are required past the history. */
  present: boolean;
  signers: Signer[];
  /** The last record that may be unsigned, and its hash. */
  history?: { seq: number; hash: string };
  /** sha256 of the file's text: a snapshot made under other signers is not reused. */
  fingerprint: string;
  diagnostics: Diagnostic[];
}

export interface Signer {
  principals: string[];
  key: SshPublicKey;
  namespaces?: string[];
  line: number;
}

const HISTORY = /^#\s*evidence-ledger\s+unsigned-history\s+(\d+)\s+([0-9a-f]{64})\s*$/;
const SIGNERS_LIMIT = 1 << 20;

/** No signers file: nothing is checked. */
export const NO_TRUST: Trust = { present: false, signers: [], fingerprint: '', diagnostics: [] };

/** Reads and parses the trusted signers file (see `Trust`); a bad line is a diagnostic and trusts nothing. */
export function loadTrust(file: string): Trust {
  const read = readRegularText(file, SIGNERS_LIMIT);
  if ('missing' in read) return NO_TRUST;
  if ('refused' in read) return { present: true, signers: [], fingerprint: '', diagnostics: [read.refused] };
  return parseAllowedSigners(read.text, file);
}

export function parseAllowedSigners(text: string, file?: string): Trust {
  const signers: Signer[] = [];
  const diagnostics: Diagnostic[] = [];
  let history: Trust['history'];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '').trim();
    const n = i + 1;
    const site = { ...(file !== undefined ? { file } : {}), range: { line: n, col: 1, endLine: n, endCol: 1 } };
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = HISTORY.exec(line);
      if (m) {
        if (history) diagnostics.push(diagnose('signersUnreadable', site, n, 'a second unsigned-history line'));
        history = { seq: Number(m[1]), hash: m[2]! };
      } else if (/^#\s*evidence-ledger\b/.test(line)) diagnostics.push(diagnose('signersUnreadable', site, n, 'expected `# evidence-ledger unsigned-history SEQ HASH`'));
      return;
    }
    const tokens = tokenize(line);
    if (tokens.length < 3) return void diagnostics.push(diagnose('signersUnreadable', site, n, 'expected principals, a key type and a key'));
    const principals = unquote(tokens[0]!).split(',').filter(Boolean);
    let k = 1;
    let namespaces: string[] | undefined;
    for (; k < tokens.length && !tokens[k]!.startsWith('ssh-') && !tokens[k]!.startsWith('ecdsa-') && !tokens[k]!.startsWith('sk-'); k++) {
      const option = /^([a-z-]+)(?:=(.*))?$/i.exec(tokens[k]!);
      if (option && option[1]!.toLowerCase() === 'namespaces' && option[2] !== undefined) namespaces = unquote(option[2]).split(',');
      else return void diagnostics.push(diagnose('signersUnreadable', site, n, `option '${tokens[k]}' is not supported (only namespaces="...")`));
    }
    const [type, base64] = [tokens[k], tokens[k + 1]];
    if (type !== 'ssh-ed25519' || base64 === undefined) return void diagnostics.push(diagnose('signersUnreadable', site, n, `key type ${type ?? 'missing'} (only ssh-ed25519 is supported)`));
    try {
      const key = publicKeyFromBlob(Buffer.from(base64, 'base64'));
      if (key.blob.toString('base64') !== base64) throw new WireError('not base64');
      signers.push({ principals, key, ...(namespaces ? { namespaces } : {}), line: n });
    } catch (error) {
      diagnostics.push(diagnose('signersUnreadable', site, n, error instanceof WireError ? error.message : 'the key does not decode'));
    }
  });
  return { present: true, signers: diagnostics.length ? [] : signers, ...(history ? { history } : {}), fingerprint: sha256(text), diagnostics };
}

function tokenize(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && /\s/.test(ch)) {
      if (current) out.push(current);
      current = '';
    } else current += ch;
  }
  if (current) out.push(current);
  return out;
}

const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s);

/** OpenSSH pattern lists: `*` and `?` wildcards, `!` negates (a negated match refuses). */
function matchesPrincipals(patterns: readonly string[], name: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const body = negated ? pattern.slice(1) : pattern;
    const re = new RegExp(`^${body.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    if (re.test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** What a record's signature covers: its canonical JSON without `signature` and `hash` (seq and prev bind it to its place in the chain). */
export function signedMessage(record: Record<string, unknown>): string {
  const { signature: _s, hash: _h, ...body } = record;
  return canonicalJson(body);
}

/** The fingerprint of the key that signed a record, read from its signature (not verified: the scan did that); undefined when unsigned. */
export function signerOf(record: EvidenceRecord): string | undefined {
  if (record.signature === undefined) return undefined;
  let fp = signerCache.get(record.signature);
  if (fp === undefined) {
    try {
      fp = parseSignature(record.signature).publicKey.fingerprint;
    } catch {
      fp = '';
    }
    if (signerCache.size > 4096) signerCache.clear();
    signerCache.set(record.signature, fp);
  }
  return fp || undefined;
}
const signerCache = new Map<string, string>();

/**
 * The check the scan runs on each record under `trust`: the unsigned history ends where it is
 * anchored and carries the anchored hash; past it every record is signed; a signature verifies
 * over the record, by a trusted key, for the record's actor.
 */
export function trustVetter(trust: Trust, file: string): (record: EvidenceRecord, line: number) => Diagnostic | undefined {
  if (!trust.present) {
    return (record, line) => (record.signature !== undefined ? diagnose('signerUnknown', site(file, line), line, keyName(record.signature)) : undefined);
  }
  const historySeq = trust.history?.seq ?? 0;
  const byKey = new Map<string, Signer[]>();
  for (const s of trust.signers) byKey.set(s.key.fingerprint, [...(byKey.get(s.key.fingerprint) ?? []), s]);
  return (record, line) => {
    if (trust.history && record.seq === trust.history.seq && record.hash !== trust.history.hash) return diagnose('historyMismatch', site(file, line), trust.history.seq);
    if (record.signature === undefined) return record.seq > historySeq ? diagnose('recordUnsigned', site(file, line), line, historySeq) : undefined;
    let parsed: ReturnType<typeof parseSignature>;
    try {
      parsed = parseSignature(record.signature);
    } catch {
      return diagnose('signatureInvalid', site(file, line), line);
    }
    const signers = byKey.get(parsed.publicKey.fingerprint);
    if (!signers) return diagnose('signerUnknown', site(file, line), line, parsed.publicKey.fingerprint);
    if (!verifyMessage(parsed, signedMessage(record as unknown as Record<string, unknown>))) return diagnose('signatureInvalid', site(file, line), line);
    const allowed = signers.some((s) => matchesPrincipals(s.principals, record.actor) && (!s.namespaces || matchesPrincipals(s.namespaces, SIGNATURE_NAMESPACE)));
    if (!allowed) return diagnose('signerNotActor', site(file, line), line, record.actor, parsed.publicKey.fingerprint);
    return undefined;
  };
}

/** The history anchor holds against a cleanly read ledger ending at `seq`: records cut below it show. */
export function historyProblem(trust: Trust, file: string, endSeq: number): Diagnostic | undefined {
  return trust.history && endSeq < trust.history.seq ? diagnose('historyMismatch', { file }, trust.history.seq) : undefined;
}

function keyName(signature: string): string {
  try {
    return parseSignature(signature).publicKey.fingerprint;
  } catch {
    return 'an unreadable key';
  }
}

const site = (file: string, line: number) => ({ file, range: { line, col: 1, endLine: line, endCol: 1 } });

/** Reads `--key FILE` for signing; a diagnostic names what is wrong with it. */
export function loadSigningKey(file: string): SshSigningKey | Diagnostic {
  const read = readRegularText(file, 64 * 1024);
  if ('missing' in read) return diagnose('signingKeyUnusable', { file }, file, 'no such file');
  if ('refused' in read) return diagnose('signingKeyUnusable', { file }, file, 'not a regular file');
  try {
    return parseOpenSshPrivateKey(read.text);
  } catch (error) {
    if (error instanceof WireError) return diagnose('signingKeyUnusable', { file }, file, error.message);
    throw error;
  }
}

/** Signs a sealed record's body with `key`, refusing a key that `trust` does not list for the actor. */
export function signRecord(trust: Trust, key: SshSigningKey, body: Record<string, unknown>): { signature: string } | Diagnostic {
  const actor = String(body['actor']);
  const listed = trust.signers.some((s) => s.key.fingerprint === key.publicKey.fingerprint && matchesPrincipals(s.principals, actor));
  if (!listed) return diagnose('signerNotTrusted', {}, key.publicKey.fingerprint, actor);
  return { signature: signMessage(key, signedMessage(body)) };
}
