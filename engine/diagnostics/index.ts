export type { Diagnostic, Severity, SourceRange } from './diagnostic.js';
export { errorCount, sortDiagnostics, UsageDiagnostic } from './diagnostic.js';
export { printable } from './printable.js';
export { CATALOGUE, diagnose, type ArgsOf, type CatalogueKey, type DiagnosticSite } from './catalogue.js';
export { def, type DiagnosticDefinition } from './definition.js';
export {
  formatDiagnostics,
  diagnosticReport,
  countDiagnostics,
  summaryLine,
  codeFrame,
  DIAGNOSTIC_FORMATS,
  type DiagnosticFormat,
  type DiagnosticReport,
  type FormatOptions,
} from './format.js';
