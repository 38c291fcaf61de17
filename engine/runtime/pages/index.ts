export { FLAG, PageFile, type FlagValue, type PageProblem } from './page-file.js';
export { CopyBatcher } from './copy-batch.js';
