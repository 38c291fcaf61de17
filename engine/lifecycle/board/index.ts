export { type Board, type BoardRow, type BoardOptions, type Staleness, type RowCore, type RowMemo, buildBoard, boardFromFold } from './board.js';
export { type BoardFormat, renderBoard } from './render.js';
export { renderReport } from './report.js';
