import type { Document } from 'mongodb';
import { FIRST_ONLY_STAGES, type Stage } from '../../domain/aggregation/validate-pipeline';

type Filter = Document;

/** Outbox bookkeeping never leaves the database through a pipeline. */
const HIDE_INTERNAL: Stage = { $unset: ['_outbox', '_purgeAfterRelay'] };

/** What a pipeline may read from each collection: the RLS and trash filters for the caller. */
export type ReadFilterFor = (collection: string) => Filter;

function guarded(filter: Filter, rest: Stage[]): Stage[] {
  return [{ $match: filter }, HIDE_INTERNAL, ...rest];
}

function rewriteStages(stages: Stage[], filterFor: ReadFilterFor): Stage[] {
  return stages.map((stage) => {
    const [name, spec] = Object.entries(stage)[0] as [string, unknown];
    switch (name) {
      case '$facet': {
        const out: Record<string, Stage[]> = {};
        for (const [k, sub] of Object.entries(spec as Record<string, Stage[]>))
          out[k] = rewriteStages(sub, filterFor);
        return { $facet: out };
      }
      case '$lookup': {
        // localField/foreignField stay (MongoDB >= 5.0 combines them with a pipeline), so the
        // join keeps its semantics while the sub-pipeline starts with the target's read filter.
        const s = spec as Record<string, unknown> & { from: string; pipeline?: Stage[] };
        return {
          $lookup: { ...s, pipeline: guarded(filterFor(s.from), rewriteStages(s.pipeline ?? [], filterFor)) },
        };
      }
      case '$unionWith': {
        const s = typeof spec === 'string' ? { coll: spec } : (spec as { coll: string; pipeline?: Stage[] });
        return {
          $unionWith: {
            coll: s.coll,
            pipeline: guarded(filterFor(s.coll), rewriteStages(s.pipeline ?? [], filterFor)),
          },
        };
      }
      case '$graphLookup': {
        const s = spec as Record<string, unknown> & { from: string; restrictSearchWithMatch?: Filter };
        const own = filterFor(s.from);
        const restrict = s.restrictSearchWithMatch ? { $and: [own, s.restrictSearchWithMatch] } : own;
        return { $graphLookup: { ...s, restrictSearchWithMatch: restrict } };
      }
      default:
        return stage;
    }
  });
}

/**
 * The pipeline that runs: the caller's read filter first (after `$geoNear`/`$search`, which must
 * lead), then the client's stages with every collection they reach filtered the same way, then a
 * cap on the number of rows.
 */
export function securePipeline(
  pipeline: Stage[],
  collection: string,
  filterFor: ReadFilterFor,
  maxRows: number,
): Stage[] {
  const first = pipeline[0];
  const lead = first && FIRST_ONLY_STAGES.has(Object.keys(first)[0] as string) ? [first] : [];
  const rest = rewriteStages(pipeline.slice(lead.length), filterFor);
  return [...lead, ...guarded(filterFor(collection), rest), { $limit: maxRows }];
}
