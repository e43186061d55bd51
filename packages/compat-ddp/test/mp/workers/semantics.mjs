// Work handles, groups and non-members, tfjs tensors and monitoredBarrier on 3 ranks; prints
// `RESULT <json>` lines for the test.
import * as tf from '@tensorflow/tfjs';
import * as dist from '@kolo/compat-ddp';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const warnings = [];
process.on('warning', (w) => warnings.push(w.message));
await tf.setBackend('cpu');
await dist.initProcessGroup({ backend: 'GLOO' });
const rank = dist.getRank();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const failure = (error) => ({ name: error.name, code: error.code, message: error.message.split('\n')[0] });

report('state', { initialized: dist.isInitialized(), backend: dist.getBackend(), size: dist.getWorldSize(), world: dist.GroupMember.WORLD?.size() });
try {
  await dist.initProcessGroup();
} catch (error) {
  report('init.twice', failure(error));
}

// Work: completes in the background; wait, isCompleted, result, getFuture.
const t = new Float32Array([rank + 1]);
const work = dist.allReduce(t, { asyncOp: true });
const before = work.isCompleted();
const waited = await work.wait();
report('work.ok', { before, waited, after: work.isCompleted(), success: work.isSuccess(), exception: work.exception() ?? null, same: work.result()[0] === t, future: (await work.getFuture())[0] === t, data: Array.from(t) });

// A failure (dtypes differ across ranks) surfaces through wait, exception() and result().
const bad = dist.allReduce(rank === 0 ? new Float32Array([1]) : new Int32Array([1]), { asyncOp: true });
try {
  await bad.wait();
  report('work.failed', 'no error');
} catch (error) {
  let thrown = null;
  try {
    bad.result();
  } catch (again) {
    thrown = again === error;
  }
  report('work.failed', { ...failure(error), completed: bad.isCompleted(), success: bad.isSuccess(), exception: bad.exception() === error, resultThrows: thrown, mentionsDtype: /dtype/.test(error.message) });
}

// wait({ timeoutMs }) gives up with a TimeoutError while the work goes on.
if (rank === 0) {
  const sending = dist.isend(new Int32Array([5, 6]), { dst: 1 });
  const late = await sending.wait({ timeoutMs: 100 }).then(() => 'no timeout', failure);
  report('work.timeout', { late, then: await sending.wait() });
} else if (rank === 1) {
  await sleep(1500);
  const into = new Int32Array(2);
  const from = await dist.recv(into, { src: 0 });
  report('work.timeout', { from, data: Array.from(into) });
}

// Groups: members reduce among themselves; the non-member is warned and left alone.
const pair = await dist.newGroup([0, 1]);
const member = pair !== dist.GroupMember.NON_GROUP_MEMBER;
const g = new Int32Array([rank + 10]);
const out = await dist.allReduce(g, { group: pair });
report('group', { member, rank: dist.getRank(pair), size: dist.getWorldSize(pair), same: out === g, data: Array.from(g), ranks: member ? dist.getProcessGroupRanks(pair) : null, groupRankOf1: member ? dist.getGroupRank(pair, 1) : null });
const tail = await dist.newGroup([1, 2]);
const fromTwo = new Float64Array([rank * 1.5]);
if (tail !== dist.GroupMember.NON_GROUP_MEMBER) await dist.broadcast(fromTwo, { src: 2, group: tail });
report('group.broadcast', Array.from(fromTwo));
if (member) {
  await dist.destroyProcessGroup(pair);
  report('group.destroyed', await Promise.resolve().then(() => dist.allReduce(g, { group: pair })).then(() => 'no error', failure));
}

// tfjs tensors are immutable: results are new tensors.
const ft = tf.tensor1d([rank + 1, 2]);
const summed = await dist.allReduce(ft);
const gathered = await dist.allGather([tf.zeros([1], 'int32'), tf.zeros([1], 'int32'), tf.zeros([1], 'int32')], tf.tensor1d([rank * 3], 'int32'));
const asyncTf = dist.broadcast(tf.tensor2d([[rank, rank], [1, 1]]), { src: 2, asyncOp: true });
await asyncTf.wait();
report('tfjs', { original: Array.from(ft.dataSync()), summed: Array.from(summed.dataSync()), dtype: summed.dtype, gathered: gathered.map((x) => [x.dtype, ...x.dataSync()]), shape: asyncTf.result()[0].shape, bcast: Array.from(asyncTf.result()[0].dataSync()) });

// monitoredBarrier names the rank that did not arrive in time; the others learn rank 0 failed.
if (rank === 2) await sleep(2500);
report('monitored.first', await dist.monitoredBarrier({ timeoutMs: 1000 }).then(() => 'passed', failure));
await dist.barrier();
if (rank !== 0) await sleep(2500);
report('monitored.all', await dist.monitoredBarrier({ timeoutMs: 1000, waitAllRanks: true }).then(() => 'passed', failure));
await dist.barrier();
await dist.destroyProcessGroup();
report('destroyed', { initialized: dist.isInitialized(), world: dist.GroupMember.WORLD, warnings });
