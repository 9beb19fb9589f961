import type { TimelineService } from '../services/history/timeline-service';

/** GraphQL's getTimeline (DataHub's GetTimelineResolver) over the timeline service: an entity's whole kept history. */
export const timelineTypeDefs = /* GraphQL */ `
  extend type Query {
    "An entity's change transactions, oldest first, over its whole kept history (the categories asked for, or every one its type has)."
    getTimeline(input: GetTimelineInput!): GetTimelineResult
  }

  enum ChangeCategoryType {
    DOCUMENTATION
    GLOSSARY_TERM
    OWNER
    TECHNICAL_SCHEMA
    TAG
    DOMAIN
    STRUCTURED_PROPERTY
    APPLICATION
  }

  enum ChangeOperationType {
    ADD
    MODIFY
    REMOVE
  }

  input GetTimelineInput {
    urn: String!
    changeCategories: [ChangeCategoryType!]
  }

  type GetTimelineResult {
    changeTransactions: [ChangeTransaction!]!
  }

  type ChangeTransaction {
    lastSemanticVersion: String!
    versionStamp: String!
    timestampMillis: Long!
    actor: String
    "ADD or REMOVE when every change of the transaction is one; else MODIFY."
    changeType: ChangeOperationType!
    changes: [ChangeEvent!]
  }

  type ChangeEvent {
    urn: String!
    auditStamp: AuditStamp
    category: ChangeCategoryType
    operation: ChangeOperationType
    modifier: String
    parameters: [TimelineParameterEntry!]
    description: String
  }

  type TimelineParameterEntry {
    key: String
    value: String
  }
`;

/** GraphQL's category names and the service's: OWNER is OWNERSHIP there. */
const toService = (category: string) => (category === 'OWNER' ? 'OWNERSHIP' : category);
const toGraphql = (category: string) => (category === 'OWNERSHIP' ? 'OWNER' : category);
const GRAPHQL_CATEGORIES = new Set(['DOCUMENTATION', 'GLOSSARY_TERM', 'OWNER', 'TECHNICAL_SCHEMA', 'TAG', 'DOMAIN', 'STRUCTURED_PROPERTY', 'APPLICATION']);

export function timelineResolvers({ timeline }: { timeline: TimelineService }) {
  return {
    Query: {
      getTimeline: async (_: unknown, { input }: { input: { urn: string; changeCategories?: string[] | null } }) => {
        // Every category the type has that GraphQL can name (DataHub's enum has no DEPRECATION or LINEAGE).
        const categories = input.changeCategories?.length ? input.changeCategories.map(toService) : timeline.categoriesOf(input.urn).filter((c) => GRAPHQL_CATEGORIES.has(toGraphql(c)));
        if (categories.length === 0) return { changeTransactions: [] };
        const { transactions } = await timeline.timeline({ urn: input.urn, categories, startTime: 0, endTime: 0 });
        return {
          changeTransactions: transactions.map((t) => {
            const operations = new Set(t.changeEvents.map((e) => e.operation));
            return {
              lastSemanticVersion: t.semVer,
              versionStamp: t.versionStamp,
              timestampMillis: t.timestamp,
              actor: t.actor,
              changeType: operations.size === 1 ? [...operations][0] : 'MODIFY',
              changes: t.changeEvents.map((e) => ({
                urn: e.entityUrn,
                auditStamp: { time: t.timestamp, actor: t.actor },
                category: toGraphql(e.category),
                operation: e.operation,
                modifier: e.modifier ?? null,
                parameters: Object.entries(e.parameters ?? {}).map(([key, value]) => ({ key, value: typeof value === 'string' ? value : JSON.stringify(value) })),
                description: e.description ?? null,
              })),
            };
          }),
        };
      },
    },
  };
}
