import { translateNeo4jError } from '../../src/stores/graph/neo4j-executor';
import { UnavailableError } from '../../src/model/errors';

describe('Neo4j error translation', () => {
  it.each([
    'ServiceUnavailable',
    'SessionExpired',
    'Neo.TransientError.Transaction.DeadlockDetected',
    'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration',
    'Neo.ClientError.Transaction.LockClientStopped',
    'Neo.ClientError.Transaction.Terminated',
  ])('%s means Neo4j did not answer in time: 503', (code) => {
    expect(translateNeo4jError({ code, message: 'x' })).toBeInstanceOf(UnavailableError);
  });

  it('leaves other errors alone (they are bugs, 500)', () => {
    const err = { code: 'Neo.ClientError.Statement.SyntaxError', message: 'bad' };
    expect(translateNeo4jError(err)).toBe(err);
  });
});

describe('Neo4j timeouts and lock contention', () => {
  it.each(['Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration', 'Neo.ClientError.Transaction.LockClientStopped', 'Neo.TransientError.Transaction.DeadlockDetected'])(
    '%s is flagged as timed out (Neo4j answered): the write path reports overload, not an outage',
    (code) => {
      expect(translateNeo4jError({ code, message: 'x' })).toMatchObject({ timedOut: true });
    },
  );
  it('an unreachable Neo4j is not', () => {
    expect(translateNeo4jError({ code: 'ServiceUnavailable', message: 'x' })).toMatchObject({ timedOut: false });
  });
});
