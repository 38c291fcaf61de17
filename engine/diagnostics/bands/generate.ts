import { def } from '../definition.js';

/**
 * 5xxx generators and packaging. 50xx: planning the adapter packages from the contracts;
 * 51xx: `package-check` (the packaging gate); 52xx: `generate --check` (drift and hand edits).
 */
export const GENERATE_DIAGNOSTICS = {
  // 50xx: planning
  noAdapterTemplate: def({ code: 'OKV5001', severity: 'warning', rule: 'no-adapter-template', message: (engine: string, known: string) => `runtime engine '${engine}' has no adapter template; no package is generated for it`, hint: (_engine: string, known: string) => `adapter templates exist for: ${known}` }),
  noAdapterClass: def({ code: 'OKV5002', severity: 'error', rule: 'no-adapter-class', message: (engine: string) => `no interface contract of engine '${engine}' names an adapterClass, so the adapter package has no import name`, hint: () => 'set `adapterClass: <package>.<module>.<Class>` on the consumed interface contract' }),
  adapterPackageConflict: def({ code: 'OKV5003', severity: 'error', rule: 'adapter-package-conflict', message: (path: string, expected: string) => `'${path}' is outside the engine's adapter package '${expected}'`, hint: () => 'every adapterClass and hook implementation of one engine lives in one top-level package' }),
  templateDoesNotProvide: def({ code: 'OKV5004', severity: 'error', rule: 'template-does-not-provide', message: (path: string, provided: string) => `'${path}' is not provided by the engine's adapter template (it provides: ${provided})`, hint: () => 'name a class or hook module the template emits, or extend the template in generators/adapters/' }),
  hookWithoutSignature: def({ code: 'OKV5005', severity: 'error', rule: 'hook-signature-required', message: (hookType: string) => `kept ${hookType} hook has no signature; the installer cannot fingerprint its target`, hint: () => 'add `signature.parameters` as inspect.signature reports them (self included)' }),
  templateSymbolMissing: def({ code: 'OKV5006', severity: 'error', rule: 'template-symbol-missing', message: (what: string) => `the adapter template needs the consumed symbol ${what}, which no interface contract of this engine lists`, hint: () => 'add the symbol to the interface contract the adapter consumes' }),
  unsafeName: def({ code: 'OKV5007', severity: 'error', rule: 'unsafe-name', message: (field: string, value: string, pattern: string) => `${field} '${value}' cannot be written into package metadata (must match ${pattern})` }),
  hookImplementationMissing: def({ code: 'OKV5008', severity: 'error', rule: 'hook-implementation-missing', message: (hookType: string) => `kept ${hookType} hook names no implementation`, hint: () => 'set `implementation: <package>.hooks.<function>`' }),
  noPluginLoading: def({ code: 'OKV5009', severity: 'error', rule: 'no-plugin-loading', message: (engine: string) => `runtime engine '${engine}' has no plugins.entryPointGroup; its adapter cannot be loaded`, hint: () => 'add `plugins: { entryPointGroup: ... }` to the engine contract' }),
  manifestPathOutside: def({ code: 'OKV5011', severity: 'error', rule: 'manifest-path-outside', message: (path: string) => `MANIFEST.json lists ${path}, which is not a file inside the output folder; it is ignored (nothing is read or removed there)`, hint: () => 'the manifest was edited or corrupted: delete MANIFEST.json and run `orbitkv generate` again' }),
  schemaToolMissing: def({ code: 'OKV5012', severity: 'error', rule: 'schema-tool-missing', message: (pkg: string) => `\`orbitkv schema\` needs the development dependency ${pkg}, which is not installed`, hint: () => 'the schema is generated from engine/model in a checkout: run `npm install` (with dev dependencies) there, then `npm run schema`' }),
  hookImplementationShared: def({ code: 'OKV5010', severity: 'error', rule: 'hook-implementation-shared', message: (path: string, other: string) => `implementation '${path}' is already the implementation of '${other}'`, hint: () => 'give every installed hook its own implementation name' }),
  // 51xx: package-check
  wheelUnreadable: def({ code: 'OKV5101', severity: 'error', rule: 'wheel-unreadable', message: (reason: string) => `cannot read the wheel: ${reason}` }),
  wheelUnknownPackage: def({ code: 'OKV5102', severity: 'error', rule: 'wheel-unknown-package', message: (name: string, known: string) => `wheel '${name}' is not an adapter package of this registry (known: ${known})` }),
  wheelRequiredFileMissing: def({ code: 'OKV5103', severity: 'error', rule: 'wheel-required-file', message: (path: string) => `required file '${path}' is missing`, hint: () => 'rebuild the wheel with `orbitkv generate --wheel`' }),
  wheelEntryPointMissing: def({ code: 'OKV5104', severity: 'error', rule: 'wheel-entry-point', message: (group: string, name: string) => `entry point '${name}' in group '${group}' is missing`, hint: () => 'the engine loads the adapter only through this entry point' }),
  wheelPinNotExact: def({ code: 'OKV5105', severity: 'error', rule: 'wheel-exact-pin', message: (requirement: string, expected: string) => `engine requirement '${requirement}' is not the exact pin '${expected}'`, hint: () => 'extras pin the engine exactly (==) to the version of its engine contract' }),
  wheelForbiddenPath: def({ code: 'OKV5106', severity: 'error', rule: 'wheel-forbidden-path', message: (path: string, pattern: string, reason: string) => `'${path}' matches retired pattern '${pattern}': ${reason}` }),
  wheelBytecode: def({ code: 'OKV5107', severity: 'error', rule: 'wheel-bytecode', message: (path: string) => `compiled bytecode '${path}' must not ship in the wheel` }),
  wheelRecordMismatch: def({ code: 'OKV5108', severity: 'error', rule: 'wheel-record', message: (path: string, detail: string) => `RECORD entry for '${path}': ${detail}` }),
  wheelPinMissing: def({ code: 'OKV5109', severity: 'error', rule: 'wheel-pin-missing', message: (expected: string) => `no extra pins the engine as '${expected}'` }),
  // 52xx: generate --check
  generatedMissing: def({ code: 'OKV5201', severity: 'error', rule: 'generated-missing', message: (path: string) => `'${path}' is missing`, hint: () => 'run `orbitkv generate`' }),
  generatedOutOfDate: def({ code: 'OKV5202', severity: 'error', rule: 'generated-out-of-date', message: (path: string) => `'${path}' differs from a fresh generation (the contracts changed)`, hint: () => 'run `orbitkv generate`' }),
  generatedEdited: def({ code: 'OKV5203', severity: 'error', rule: 'generated-edited', message: (path: string) => `'${path}' was edited by hand (its hash differs from the manifest)`, hint: () => 'generated files are not edited: change the contracts or the templates, then run `orbitkv generate`' }),
  generatedStale: def({ code: 'OKV5204', severity: 'error', rule: 'generated-stale', message: (path: string) => `'${path}' is no longer generated (stale)`, hint: () => 'run `orbitkv generate` to remove it' }),
} as const;
