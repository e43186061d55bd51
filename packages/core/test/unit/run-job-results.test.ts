// The multi-process test harness's reading of RESULT lines, mpirun's spliced output included.
import { describe, expect, it } from 'vitest';
import { parseResults } from '../../../../test-support/run-job.js';

describe('parseResults', () => {
  it("rejoins lines that mpirun's --tag-output split between ranks", () => {
    // What Open MPI 4.1 printed for three ranks that each wrote a line in two pieces.
    const stdout =
      '[1,0]<stdout>:RESULT {"rank":0,"key":"k",[1,1]<stdout>:RESULT {"rank":1,"key":"k",[1,2]<stdout>:RESULT {"rank":2,"key":"k",[1,0]<stdout>:"value":0}\n' +
      '[1,1]<stdout>:"value":1}\n[1,2]<stdout>:"value":2}\n';
    expect([...(parseResults(stdout).get('k') ?? [])]).toEqual([[0, 0], [1, 1], [2, 2]]);
  });

  it("reads kolorun's whole tagged lines and skips a line cut short", () => {
    const stdout = '[0]<stdout>: RESULT {"rank":0,"key":"k","value":[1]}\n[1]<stdout>: RESULT {"rank":1,"key":"k","val\n';
    expect([...(parseResults(stdout).get('k') ?? [])]).toEqual([[0, [1]]]);
  });
});
