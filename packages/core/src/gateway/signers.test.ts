import { describe, expect, it } from 'vitest';
import { bedrockConverseCodec } from '@tollgate/codecs/bedrock-converse';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { awsSigV4Signer } from '../aws-sigv4.js';
import { operationKinds } from '../kinds.js';
import { createGateway as createFull } from './all-codecs.js';
import { GatewayConfigError } from './config-error.js';
import type { RegistryFileInput } from '../registry/index.js';
import { createGateway } from './create.js';

const registry = (credential = 'aws'): RegistryFileInput => ({
  wire_formats: { openai_chat: { family: 'chat' }, bedrock_converse: { family: 'chat' } },
  entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
  converters: [{ from: 'openai_chat', to: 'bedrock_converse' }],
  credentials: {
    aws: { kind: 'aws_sigv4', region: 'us-east-1', service: 'bedrock', access_key_id: 'AWS_ACCESS_KEY_ID', secret_access_key: 'AWS_SECRET_ACCESS_KEY' },
    key: { kind: 'bearer', secret: 'KEY' },
  },
  providers: { bedrock: { base_url: 'https://bedrock-runtime.us-east-1.amazonaws.com', credential } },
  operations: [
    { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/converse', stream_path: '/model/{model}/converse-stream' },
  ],
  models: {
    nova: {
      brand: 'amazon',
      entry_formats: ['openai_chat'],
      deployments: [
        { id: 'n', provider: 'bedrock', format: 'bedrock_converse', upstream_model: 'm', pricing: { unit: 'usd_per_mtok', input: '1', output: '1' } },
      ],
    },
  },
});
const identity = { virtual_keys: [] };
const codecs = [openaiChatCodec, bedrockConverseCodec];

function refusal(make: () => unknown): string[] {
  try {
    make();
  } catch (error) {
    if (error instanceof GatewayConfigError) return error.errors.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe('upstream signers', () => {
  it('a minimal gateway with an aws_sigv4 credential and no signer refuses to start, naming the provider and the import', () => {
    expect(refusal(() => createGateway({ registry: registry(), identity, codecs }))).toEqual([
      "signers: no signer for credential kind aws_sigv4, needed by provider bedrock: add awsSigV4Signer from '@tollgate/core/aws-sigv4'",
    ]);
  });

  it('a google_service_account credential needs its signer too', () => {
    const vertex = {
      ...registry('key'),
      credentials: { ...registry('key').credentials, sa: { kind: 'google_service_account' as const, secret: 'SA_KEY' } },
      providers: { bedrock: { base_url: 'https://x.example.com', credential: 'sa' } },
    };
    expect(refusal(() => createGateway({ registry: vertex, identity, codecs, signers: [awsSigV4Signer] }))).toEqual([
      "signers: no signer for credential kind google_service_account, needed by provider bedrock: add googleServiceAccountSigner from '@tollgate/core/google-service-account'",
    ]);
  });

  it('with the signer listed it starts; a registry without such credentials needs none', async () => {
    await createGateway({ registry: registry(), identity, codecs, signers: [awsSigV4Signer] }).close();
    await createGateway({ registry: registry('key'), identity, codecs }).close();
  });

  it('the full createGateway brings the AWS signer by default', async () => {
    await createFull({ registry: registry(), identity }).close();
  });

  it('a reload that adds an aws_sigv4 provider to a gateway without the signer is refused, the last good registry kept', async () => {
    const gateway = createGateway({ registry: registry('key'), identity, codecs });
    expect(() => gateway.reload({ registry: registry() })).toThrow(GatewayConfigError);
    expect(gateway.registry.providers.bedrock!.credential?.kind).toBe('bearer');
    await gateway.close();
  });

  it('count_tokens and embed routes need what serves them: a minimal gateway without operationKinds refuses to start', async () => {
    const withCount = {
      ...registry('key'),
      entry_routes: [...registry('key').entry_routes, { path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' as const }],
    };
    expect(refusal(() => createGateway({ registry: withCount, identity, codecs }))).toEqual([
      "kinds: nothing serves the embed route /v1/embeddings: add operationKinds from '@tollgate/core/kinds'",
    ]);
    await createGateway({ registry: withCount, identity, codecs, kinds: operationKinds }).close();
    await createFull({ registry: withCount, identity }).close();
  });

  it('something that is not a signer is refused', () => {
    expect(refusal(() => createGateway({ registry: registry('key'), identity, codecs, signers: [{ kind: 'aws_sigv4' } as never] }))).toEqual([
      'signers[0]: not a signer (import awsSigV4Signer from @tollgate/core/aws-sigv4)',
    ]);
  });
});
