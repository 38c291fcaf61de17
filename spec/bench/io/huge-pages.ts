/**
 * Huge-page buffers for fio, so that its sequential runs move bytes from the same kind of memory as
 * ours (slices of an allocAligned mapping in 2 MiB pages, as the Manager's DRAM arena). O_DIRECT
 * pins every page of a buffer for each I/O, and on the VMs measured the page size moved the rate of
 * 1 MiB writes more than either engine did: fio 2.19-2.40 GB/s from its malloc buffer against
 * 2.98-3.03 from hugetlbfs pages on the dev VM (spec/bench/results/seq-write-ab-dev-vm.txt).
 *
 * fio takes huge pages only from hugetlbfs (`--mem=mmaphuge:FILE`); transparent huge pages it does
 * not ask for. `fioHugePages()` finds a mounted hugetlbfs with free pages, or, run as root, mounts a
 * private one and reserves the pages for the run, then `release()` unmounts it and puts the
 * reservation back as it was. ORBITKV_BENCH_FIO_HUGE=0 leaves fio's memory as it is; the bench then
 * says so by its rows' peer names.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Huge pages fio needs: its buffer is iodepth x bs (16 MiB) plus alignment. */
const PAGES = 16;

export interface FioHugePages {
  /** fio's argument (`--mem=mmaphuge:FILE`), or null when huge pages are not to be had. */
  arg: string | null;
  /** What was done, or why not (printed with the results). */
  note: string;
  /** Unmounts and unreserves what this process set up (nothing for a mount it found). */
  release(): void;
}

const NR = '/proc/sys/vm/nr_hugepages';
const freePages = () => Number(/HugePages_Free:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);

export function fioHugePages(): FioHugePages {
  const none = (note: string): FioHugePages => ({ arg: null, note, release: () => undefined });
  if (process.env['ORBITKV_BENCH_FIO_HUGE'] === '0') return none('fio: its own buffers (ORBITKV_BENCH_FIO_HUGE=0)');
  try {
    const mounted = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')).find((f) => f[2] === 'hugetlbfs');
    if (mounted && freePages() >= PAGES) return { arg: `--mem=mmaphuge:${join(mounted[1]!, `orbitkv-fio-${process.pid}`)}`, note: `fio: huge pages from the hugetlbfs at ${mounted[1]}`, release: () => undefined };
    if (process.getuid?.() !== 0) return none('fio: its own buffers (no hugetlbfs with free pages, and not root to set one up)');
    const before = Number(readFileSync(NR, 'utf8'));
    writeFileSync(NR, String(before + PAGES));
    const dir = mkdtempSync(join(tmpdir(), 'orbitkv-hugetlbfs-'));
    // Given back once, whichever comes first: the bench's own release, its process exiting, or
    // an interrupt (the pages and the mount are the machine's, not this process's).
    let released = false;
    const onSignal = (signal: NodeJS.Signals) => {
      release();
      process.kill(process.pid, signal);
    };
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        execFileSync('umount', [dir]);
      } catch {
        // not mounted
      }
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(NR, String(before));
    };
    process.once('exit', release);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      execFileSync('mount', ['-t', 'hugetlbfs', 'none', dir]);
    } catch (error) {
      release();
      return none(`fio: its own buffers (mount -t hugetlbfs refused: ${(error as Error).message.split('\n')[0]})`);
    }
    if (freePages() < PAGES) {
      release();
      return none(`fio: its own buffers (the kernel reserved fewer than ${PAGES} huge pages)`);
    }
    return { arg: `--mem=mmaphuge:${join(dir, 'fio')}`, note: `fio: huge pages from a hugetlbfs mounted for the run (${PAGES} pages reserved, then given back)`, release };
  } catch (error) {
    return none(`fio: its own buffers (${(error as Error).message.split('\n')[0]})`);
  }
}
