import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';

describe('the assistant configuration', () => {
  it('answers from retrieval unless the operator configures a model server', () => {
    expect(loadConfig({}).llm).to.equal(null);
    expect(loadConfig({ AI_OPENAI_BASE_URL: 'http://ollama:11434/v1' }).llm).to.equal(null);
  });

  it('needs a base URL for the openai provider, and reads an empty model as the default', () => {
    expect(() => loadConfig({ AI_PROVIDER: 'openai' })).to.throw(/AI_OPENAI_BASE_URL/);
    const config = loadConfig({
      AI_PROVIDER: 'openai',
      AI_OPENAI_BASE_URL: 'http://ollama:11434/v1',
      AI_OPENAI_MODEL: '',
      AI_OPENAI_API_KEY: '',
    });
    expect(config.llm).to.deep.include({
      baseUrl: 'http://ollama:11434/v1',
      model: 'llama3.1',
      timeoutMs: 20_000,
    });
    expect(config.llm?.apiKey).to.equal(undefined);
  });
});
