import { InvalidInputError, UnavailableError } from '../../src/model/errors';
import { translateEngineError } from '../../src/stores/search/engine';

describe('search engine errors', () => {
  const failure = (statusCode: number, error: Record<string, unknown>) => Object.assign(new Error('search failed'), { name: 'ResponseError', meta: { statusCode, body: { error } } });

  it('are the input’s fault when the query expands to too many clauses, whatever the status (a 400, not a 500)', () => {
    const nested = failure(500, { type: 'search_phase_execution_exception', root_cause: [{ type: 'too_many_nested_clauses' }], caused_by: { type: 'too_many_nested_clauses' } });
    const translated = translateEngineError(nested);
    expect(translated).toBeInstanceOf(InvalidInputError);
    expect((translated as Error).message).toContain('too complex');
    expect(translateEngineError(failure(400, { type: 'parse_exception' }))).toBeInstanceOf(InvalidInputError);
    expect(translateEngineError(failure(503, { type: 'unavailable' }))).toBeInstanceOf(UnavailableError);
    const other = failure(500, { type: 'illegal_state_exception' });
    expect(translateEngineError(other)).toBe(other);
  });
});
