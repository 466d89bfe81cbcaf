import path from 'node:path';
import { loadModule } from '../tests/load_module.mjs';
const module = await loadModule(path.resolve(process.argv[2]));
const spec = process.argv[3] ? JSON.parse(process.argv[3]) : {};
for (let r = 0; r < 8; ++r) {
  const t0 = performance.now();
  const session = new module.Session(JSON.stringify(spec));
  if (!session.ok()) throw new Error(session.error());
  const summary = JSON.parse(session.run(() => true));
  session.delete();
  console.log('total', ((performance.now() - t0)/1000).toFixed(3), 'run', summary.seconds.toFixed(3));
}
