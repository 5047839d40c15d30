import { describe, expect, it } from 'vitest';
import { hardCapRules } from './hard-caps.js';

const rule = (id: string, actions: Array<Record<string, unknown>>, enforcement?: 'enforce' | 'shadow') => ({
  id,
  ...(enforcement === undefined ? {} : { enforcement }),
  matches: [{ match: { scope: 'all', window: 'monthly' as const, at_or_above_usd: '1' }, actions }],
});

describe('hardCapRules', () => {
  it('lists the enforced rules with a block action, in order', () => {
    const policy = {
      spend: {
        rules: [
          rule('soft', [
            { type: 'notify', to: ['user'] },
            { type: 'message', text: 'careful' },
          ]),
          rule('cap-a', [{ type: 'notify', to: ['user'] }, { type: 'block' }]),
          rule('paused', [{ type: 'pause', hours: 1 }]),
          rule('cap-b', [{ type: 'block', message: 'over budget' }], 'enforce'),
          rule('shadow-cap', [{ type: 'block' }], 'shadow'),
        ],
      },
    };
    expect(hardCapRules(policy as never)).toEqual(['cap-a', 'cap-b']);
  });

  it('finds none without a policy, without spend rules, or in a shadow policy', () => {
    expect(hardCapRules(null)).toEqual([]);
    expect(hardCapRules(undefined)).toEqual([]);
    expect(hardCapRules({})).toEqual([]);
    expect(hardCapRules({ enforcement: 'shadow', spend: { rules: [rule('cap', [{ type: 'block' }])] } } as never)).toEqual([]);
  });
});
