import { InvalidInputError } from '../../model/errors';
import type { TimelineService } from '../../services/history/timeline-service';
import type { RouteDefinition } from '../route';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const PARAMETERS = ['categories', 'startTime', 'endTime', 'raw', 'includeVersionSet'];

/** DataHub's timeline API (`datahub timeline` calls it). */
export function timelineRoutes(timeline: TimelineService): RouteDefinition[] {
  const route: RouteDefinition = {
    operationId: 'getTimeline',
    method: 'GET',
    path: '/openapi/v2/timeline/v1/:urn',
    tag: 'History',
    summary: "An entity's change transactions in a time window, per change category, computed from its kept aspect versions",
    description:
      "DataHub's answer: transactions (timestamp, actor, semVer and semVerChange by DataHub's rules, versionStamp, change events " +
      'with category, operation, modifier, entityUrn, description and parameters), oldest first. Window: startTime..endTime ' +
      '(epoch ms; default the 7 days before endTime, which defaults to now). Categories: DOCUMENTATION, GLOSSARY_TERM, OWNERSHIP ' +
      '(or OWNER), TECHNICAL_SCHEMA, TAG, DOMAIN, STRUCTURED_PROPERTY, APPLICATION, and (this service) DEPRECATION and LINEAGE ' +
      '(upstream datasets). When retention ' +
      'trimmed history the window reaches into, header `X-History-Trimmed` lists `aspect=<epoch ms from which its history is kept>`; ' +
      'the oldest kept version of such an aspect is then a starting point, not a change.',
    scope: 'none',
    pathParams: { urn: 'URL-encoded entity urn' },
    query: {
      properties: {
        categories: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 200 }, description: 'Comma-separated or repeated, e.g. TAG,OWNER' },
        startTime: { type: 'integer', description: 'Epoch ms; -1 (default) = 7 days before endTime' },
        endTime: { type: 'integer', description: 'Epoch ms; 0 (default) = now' },
        raw: { type: 'string', enum: ['true', 'false', 'True', 'False'], description: "Add each transaction's JSON Patch (rawDiff); the official client sends True" },
        includeVersionSet: { type: 'string', enum: ['true', 'false', 'True', 'False'], description: 'Merge the whole timelines of every entity in its version set (its VersionOf edges), oldest first' },
      },
      required: ['categories'],
    },
    example: {
      response: [
        {
          timestamp: 1700000000000,
          actor: 'urn:li:corpuser:datahub',
          semVer: '0.0.0-computed',
          semVerChange: 'MINOR',
          versionStamp: 'globalTags:0',
          changeEvents: [
            {
              entityUrn: SAMPLE,
              category: 'TAG',
              operation: 'ADD',
              modifier: 'urn:li:tag:Legacy',
              parameters: { tagUrn: 'urn:li:tag:Legacy', context: '{}', sourceDetails: '{}' },
              semVerChange: 'MINOR',
              description: `Tag 'Legacy' added to entity '${SAMPLE}'.`,
            },
          ],
        },
      ],
    },
    handle: async ({ params, query, ctx }) => {
      // A parameter this service does not implement (startVersionStamp, …) is refused, not ignored.
      const unknown = Object.keys(ctx.query).filter((k) => !PARAMETERS.includes(k));
      if (unknown.length > 0) throw new InvalidInputError(`Unknown parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}; the timeline takes ${PARAMETERS.join(', ')}`);
      const result = await timeline.timeline({
        urn: params.urn,
        categories: query.categories as string[],
        startTime: query.startTime as number | undefined,
        endTime: query.endTime as number | undefined,
        raw: String(query.raw).toLowerCase() === 'true',
        includeVersionSet: String(query.includeVersionSet).toLowerCase() === 'true',
      });
      if (result.trimmed.length > 0) ctx.set('X-History-Trimmed', result.trimmed.map((t) => `${t.aspect}=${t.knownFrom}`).join(','));
      return result.transactions;
    },
  };
  // DataHub serves the same timeline at its v1 path too (its own OpenAPI smoke tests read both).
  return [route, { ...route, operationId: 'getTimelineV1', path: '/openapi/v1/timeline/:urn', summary: `${route.summary} (the same, at DataHub's v1 path)` }];
}
