// Files a create writes beside the labels (--results, --merge) must not be the ones it reads: loaded only when
// one of them is given.
import { failedCsvPathFor } from '../../bulk/csv-out.js';
import { UsageError } from '../../errors.js';
import { isStreamPath, sameFile } from '../../util/special-file.js';
import type { CreateOptions } from './run.js';

/**
 * --results or --merge naming one of the run's own files would overwrite it: the input file (the rerun that
 * resumes the run would then read results or a PDF), its failed rows' file, the request file, the mapping or the
 * customs file, or each other.
 */
export function refuseOutputsOverInputs(o: CreateOptions): void {
  const csv = o.csv !== undefined && o.csv !== '-' && !isStreamPath(o.csv) ? o.csv : undefined;
  const inputs: Array<[string | undefined, string]> = [
    [csv, `the input file (--csv ${csv})`],
    [csv && failedCsvPathFor(csv), `the failed rows' file ${csv && failedCsvPathFor(csv)}`],
    [o.file === '-' ? undefined : o.file, `the input file (--file ${o.file})`],
    [o.map === '-' ? undefined : o.map, `--map ${o.map}`],
    [o.customs === '-' ? undefined : o.customs, `--customs ${o.customs}`],
  ];
  const outputs: Array<[string | undefined, string, string]> = [
    [o.results, '--results', 'name another file for the results, e.g. --results results.csv'],
    [o.merge, '--merge', 'name another file for the merged labels, e.g. --merge labels.pdf'],
  ];
  for (const [out, flag, hint] of outputs) {
    if (out === undefined) continue;
    for (const [path, what] of inputs) {
      if (path !== undefined && sameFile(out, path)) throw new UsageError(`${flag} ${out} is ${what}: it would be overwritten`, { hint });
    }
  }
  if (o.results !== undefined && o.merge !== undefined && sameFile(o.results, o.merge)) {
    throw new UsageError(`--results and --merge name the same file (${o.merge}): each would overwrite the other`, { hint: 'name two files, e.g. --results results.csv --merge labels.pdf' });
  }
}
