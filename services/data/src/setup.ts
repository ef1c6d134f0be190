/** The setup Job's entry point: migrations, indexes and streams, then exit (see runSetup). */
import path from 'node:path';
import { runSetup } from '@baas/common';
import { ensureDataIndexes } from './adapters/indexes';

runSetup('data', path.resolve(__dirname, '../migrations'), ensureDataIndexes);
