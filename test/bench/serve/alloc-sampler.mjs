// Preloaded into `tollgate serve` by alloc.ts: on SIGUSR2 start V8's sampling heap profiler,
// counting objects the GC has already collected too (so it measures allocation, not what is
// live); on SIGTERM write the profile to ALLOC_OUT before the server drains and exits.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new Session();
session.connect();
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.startSampling', { samplingInterval: 2048, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
});
process.once('SIGTERM', () => {
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error === null && process.env.ALLOC_OUT !== undefined) writeFileSync(process.env.ALLOC_OUT, JSON.stringify(result.profile));
  });
});
