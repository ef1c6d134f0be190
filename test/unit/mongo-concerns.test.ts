import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { MONGO_CONCERNS } from '../../packages/common/src/mongo/client';

/**
 * Issue 12: MongoDB writes that acknowledge a client's change use `w: "majority"`. Every service
 * reaches MongoDB through the kernel's connectMongo, whose client carries the write and read
 * concerns; this test keeps it that way: no adapter builds its own client or weakens a concern
 * per operation.
 */
const ROOT = path.resolve(__dirname, '../..');
const CLIENT = 'packages/common/src/mongo/client.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const production = [
  ...readdirSync(path.join(ROOT, 'services')).flatMap((s) => sources(path.join(ROOT, 'services', s, 'src'))),
  ...sources(path.join(ROOT, 'packages/common/src')),
].map((p) => path.relative(ROOT, p));

describe('MongoDB write and read concerns', () => {
  it('acknowledges writes on a journaled majority and reads majority-committed data', () => {
    expect(MONGO_CONCERNS).toEqual({
      writeConcern: { w: 'majority', journal: true },
      readConcern: { level: 'majority' },
    });
  });

  it('every MongoDB client of the services is built by connectMongo', () => {
    const builders = production.filter((p) =>
      /new MongoClient\(|MongoClient\.connect\(/.test(readFileSync(path.join(ROOT, p), 'utf8')),
    );
    expect(builders).toEqual([CLIENT]);
  });

  it('no adapter sets its own write or read concern (which could weaken the client-wide ones)', () => {
    const overriding = production.filter(
      (p) =>
        p !== CLIENT &&
        /writeConcern|readConcern|\bw:\s*(0|1|'|")|journal:\s*false|readPreference/.test(
          readFileSync(path.join(ROOT, p), 'utf8'),
        ),
    );
    expect(overriding).toEqual([]);
  });
});
