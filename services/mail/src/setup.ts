/** The setup Job's entry point: migrations, indexes and streams, then exit (see runSetup). */
import path from 'node:path';
import { runSetup } from '@baas/common';
import { ensureMailIndexes } from './adapters/indexes';

runSetup('mail', path.resolve(__dirname, '../migrations'), ensureMailIndexes);
