import { def } from '../definition.js';

/** 1xxx reading and parsing files, 2xxx schema, 3xxx registry semantics. */
export const REGISTRY_DIAGNOSTICS = {
  // 1xxx: reading and parsing
  registryNotFound: def({ code: 'OKV1001', severity: 'error', rule: 'registry-not-found', message: (dir: string) => `registry folder '${dir}' does not exist or is not a directory`, hint: () => 'pass --registry DIR pointing at a folder of contract YAML files' }),
  unreadableFile: def({ code: 'OKV1002', severity: 'error', rule: 'unreadable-file', message: (reason: string) => `cannot read file: ${reason}` }),
  notUtf8: def({ code: 'OKV1003', severity: 'error', rule: 'not-utf8', message: (offset: number) => `file is not valid UTF-8 (first bad byte at offset ${offset})`, hint: () => 're-save the file as UTF-8' }),
  fileTooLarge: def({ code: 'OKV1004', severity: 'error', rule: 'file-too-large', message: (size: number, limit: number) => `file is ${size} bytes; contracts are limited to ${limit} bytes`, hint: () => 'one contract per file; a contract this large is almost certainly not a contract' }),
  emptyFile: def({ code: 'OKV1005', severity: 'error', rule: 'empty-file', message: () => 'file holds no YAML document', hint: () => 'run `orbitkv new KIND ID` to scaffold a contract, or delete the file' }),
  yamlSyntax: def({ code: 'OKV1006', severity: 'error', rule: 'yaml-syntax', message: (detail: string) => `YAML syntax error: ${detail}` }),
  duplicateKey: def({ code: 'OKV1007', severity: 'error', rule: 'duplicate-key', message: (key: string) => `key '${key}' appears twice in the same mapping`, hint: () => 'keep one; YAML would silently keep only one of them' }),
  aliasUsed: def({ code: 'OKV1008', severity: 'error', rule: 'no-aliases', message: () => 'anchors and aliases are not allowed in contracts', hint: () => 'write the value out; contracts are reviewed line by line and aliases can expand without bound' }),
  multipleDocuments: def({ code: 'OKV1009', severity: 'error', rule: 'one-document-per-file', message: (n: number) => `file holds ${n} YAML documents; one contract per file`, hint: () => 'split the documents into one file each' }),
  symlinkLoop: def({ code: 'OKV1010', severity: 'error', rule: 'symlink-loop', message: (target: string) => `symbolic link loops back to '${target}'; skipped`, hint: () => 'remove the link' }),
  notAMapping: def({ code: 'OKV1011', severity: 'error', rule: 'not-a-mapping', message: () => 'a contract must be a YAML mapping with `kind:` first', hint: () => 'start the document with `kind: <engine|interface|hook|gap|rejection|gate|upstream|policy>`' }),
  // 2xxx: schema
  unknownKind: def({ code: 'OKV2001', severity: 'error', rule: 'unknown-kind', message: (kind: string, kinds: string) => `unknown contract kind '${kind}'`, hint: (_kind: string, kinds: string) => `use one of: ${kinds}` }),
  missingKind: def({ code: 'OKV2002', severity: 'error', rule: 'missing-kind', message: () => 'contract has no `kind`', hint: () => 'add `kind:` as the first key' }),
  schemaRequired: def({ code: 'OKV2003', severity: 'error', rule: 'required-field', message: (field: string, where: string) => `missing required field '${field}'${where}`, hint: (field: string) => `add '${field}:' (your editor's YAML extension completes it from the modeline's schema)` }),
  schemaUnknownKey: def({ code: 'OKV2004', severity: 'error', rule: 'unknown-field', message: (key: string, where: string, _suggestion?: string) => `unknown field '${key}'${where}`, hint: (_key: string, _where: string, suggestion?: string) => (suggestion ? `did you mean '${suggestion}'?` : 'remove it; the schema lists the allowed fields') }),
  schemaType: def({ code: 'OKV2005', severity: 'error', rule: 'wrong-type', message: (where: string, expected: string) => `${where} must be ${expected}` }),
  schemaEnum: def({ code: 'OKV2006', severity: 'error', rule: 'not-allowed-value', message: (where: string, value: string, allowed: string) => `${where} is '${value}'; allowed: ${allowed}` }),
  schemaPattern: def({ code: 'OKV2007', severity: 'error', rule: 'bad-format', message: (where: string, value: string, pattern: string) => `${where} '${value}' does not match ${pattern}` }),
  schemaOther: def({ code: 'OKV2008', severity: 'error', rule: 'schema', message: (where: string, detail: string) => `${where} ${detail}` }),
  schemaNoVariant: def({ code: 'OKV2009', severity: 'error', rule: 'no-matching-shape', message: (where: string, shapes: string) => `${where} matches none of its allowed shapes (${shapes})`, hint: () => 'compare with the schema in contracts/schema/; the first differing key is usually the culprit' }),
  modelineMissing: def({ code: 'OKV2010', severity: 'warning', rule: 'modeline', message: (expected: string) => `first line should be the schema modeline '${expected}'`, hint: (expected: string) => `add '${expected}' as the first line so editors autocomplete and check the file` }),
  fileNameMismatch: def({ code: 'OKV2011', severity: 'warning', rule: 'file-name', message: (id: string, file: string) => `contract '${id}' lives in '${file}'; expected a file named '${id}.yaml'`, hint: (id: string) => `rename the file to '${id}.yaml'` }),
} as const;
