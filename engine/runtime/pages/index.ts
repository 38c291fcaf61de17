export { FLAG, PageFile, registrationBytes, type FlagValue, type PageProblem } from './page-file.js';
export { CopyBatcher } from './copy-batch.js';
