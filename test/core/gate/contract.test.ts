// The toolset contract from the outside: a toolset written here, with a plan of its own and no
// line of core that knows it, is gated, asked, remembered for the session and run exactly like
// the built-in ones. `notes.append` appends to a file under its root: it says it writes (the
// files.write axis) and which file, what an approval shows, and it asks while running about a
// file it finds locked, which only running can tell.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkArgs } from '../../../src/core/contract/args.ts';
import type { CallPlan, CallView, PlanContext, Toolset } from '../../../src/core/contract/toolset.ts';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import type { ToolSpec } from '../../../src/core/tool.ts';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function workspace(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-contract-')));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(root, rel), text);
  return root;
}

const SPEC: ToolSpec = {
  toolset: 'notes',
  name: 'append',
  description: 'append a line to a notes file',
  kind: 'edit',
  inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'], additionalProperties: false },
};

class Notes implements Toolset {
  readonly name = 'notes';
  constructor(readonly root: string) {}
  list(): ToolSpec[] {
    return [SPEC];
  }
  view(_tool: string, args: Record<string, unknown>): CallView {
    const p = typeof args.path === 'string' ? args.path : '';
    return { title: `notes.append: ${p}`, kind: 'edit', locations: p ? [{ path: path.join(this.root, p) }] : [] };
  }
  plan(tool: string, args: Record<string, unknown>, _ctx: PlanContext): CallPlan {
    const a = checkArgs(`notes.${tool}`, SPEC.inputSchema, args) as { path: string; text: string };
    const file = path.join(this.root, a.path);
    return {
      facts: { toolset: 'notes', tool, axis: 'files.write', paths: [a.path], resolved: [a.path], absolute: [file] },
      effects: 'workspace',
      scope: { whole: [{ kind: 'file', axis: 'files.write', path: a.path }] },
      locations: [a.path],
      keepsNames: true,
      approval: async () => ({ title: `notes.append: ${a.path}`, detail: [`append ${a.text.length + 1} bytes`] }),
      run: async (ctx) => {
        if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').startsWith('LOCKED')) {
          await ctx.ask({
            tool,
            title: `notes.append: ${a.path} (locked)`,
            kind: 'edit',
            args,
            locations: [a.path],
            scope: [{ kind: 'tool', tool: 'notes.unlock' }],
            rule: 'files.write',
            sentence: `approve: ${a.path} is locked`,
            refusal: `${a.path} is locked and nobody can unlock it here.`,
          });
        }
        fs.appendFileSync(file, `${a.text}\n`);
        return { appended: a.path };
      },
    };
  }
  async call(): Promise<unknown> {
    throw new Error('the gate runs the plan');
  }
}

function scripted(...answers: ApprovalAnswer[]): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return Object.assign(async (req: ApprovalRequest) => {
    requests.push(req);
    return answers.shift() ?? { outcome: 'reject' as const };
  }, { requests });
}

function gateFor(root: string, o: { envelope?: string; specs?: Record<string, EnvelopeSpec>; approver?: Approver; yes?: boolean } = {}): Gate {
  const env = buildEnvelope(o.envelope ?? 'default', { ...SHIPPED_ENVELOPES, ...(o.specs ?? {}) }, FLOOR_RULES);
  return new Gate({ envelope: env, approver: o.approver, autoApprove: o.yes }).add(new Notes(root));
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (isToolError(err)) return err.code;
    throw err;
  }
}

const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

describe('a toolset written outside core, with its own plan', () => {
  test('is decided on its axis, asked with its own approval view, and run', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_once' });
    const r = await gateFor(root, { approver }).call('notes.append', { path: 'todo.md', text: 'one' });
    assert.equal(r.decision.rule, 'files.write', 'the default envelope asks for writes: the plan said it writes');
    assert.equal(r.approvedBy, 'human');
    assert.deepEqual(r.result, { appended: 'todo.md' });
    assert.equal(read(root, 'todo.md'), 'one\n');
    const req = approver.requests[0];
    assert.equal(req.title, 'notes.append: todo.md');
    assert.equal(req.kind, 'edit');
    assert.deepEqual(req.detail, ['append 4 bytes']);
    assert.deepEqual(req.locations, ['todo.md']);
    assert.deepEqual(req.sessionScope, [{ kind: 'file', axis: 'files.write', path: 'todo.md' }]);
  });

  test('allow for this session covers that file, not another', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_session' }, { outcome: 'reject' });
    const gate = gateFor(root, { approver });
    await gate.call('notes.append', { path: 'a.md', text: 'x' });
    assert.deepEqual(gate.session.describe(), ['write a.md']);
    assert.equal((await gate.call('notes.append', { path: 'a.md', text: 'y' })).approvedBy, 'session');
    assert.equal((await gate.evaluate('notes.append', { path: 'a.md', text: 'z' })).coveredBySession, true);
    assert.equal(await code(gate.call('notes.append', { path: 'b.md', text: 'x' })), 'rejected');
    assert.equal(approver.requests.length, 2);
    assert.equal(read(root, 'a.md'), 'x\ny\n');
    assert.equal(fs.existsSync(path.join(root, 'b.md')), false);
  });

  test('the envelope denies it where writes are denied, and its deny lists see its paths', async () => {
    const root = workspace();
    assert.equal(await code(gateFor(root, { envelope: 'read_only', yes: true }).call('notes.append', { path: 'a.md', text: 'x' })), 'envelope_denied');
    const specs: Record<string, EnvelopeSpec> = { mine: { extends: 'default', files: { write: { deny_paths: ['*.lock'] } } } };
    const ev = await gateFor(root, { envelope: 'mine', specs }).evaluate('notes.append', { path: 'pkg.lock', text: 'x' });
    assert.deepEqual([ev.decision.action, ev.decision.rule], ['deny', 'files.write.deny_paths']);
    assert.equal(fs.existsSync(path.join(root, 'a.md')), false);
  });

  test('its tools pattern allows it unasked; nobody to ask refuses; --yes approves', async () => {
    const root = workspace();
    const named = gateFor(root, { envelope: 'mine', specs: { mine: { extends: 'default', tools: { 'notes.append': { grant: 'allow' } } } } });
    assert.equal((await named.call('notes.append', { path: 'a.md', text: 'x' })).decision.rule, 'tools');
    assert.equal(await code(gateFor(root).call('notes.append', { path: 'a.md', text: 'y' })), 'approval_required');
    assert.equal((await gateFor(root, { yes: true }).call('notes.append', { path: 'a.md', text: 'z' })).approvedBy, 'yes');
    assert.equal(read(root, 'a.md'), 'x\nz\n');
  });

  test('its argument errors come out of its plan before anyone is asked', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_once' });
    const gate = gateFor(root, { approver, envelope: 'ask_always' });
    assert.equal(await code(gate.call('notes.append', { path: 'a.md' })), 'bad_args');
    assert.equal(await code(gate.call('notes.append', { path: 'a.md', text: 'x', mode: 'w' })), 'bad_args');
    assert.equal(approver.requests.length, 0);
    assert.equal(fs.existsSync(path.join(root, 'a.md')), false);
  });

  test('what only running finds out is asked then: through the same approver, answered by the session once allowed', async () => {
    const root = workspace({ 'l.md': 'LOCKED\n' });
    const specs: Record<string, EnvelopeSpec> = { mine: { extends: 'default', tools: { 'notes.append': { grant: 'allow' } } } };
    assert.equal(await code(gateFor(root, { envelope: 'mine', specs }).call('notes.append', { path: 'l.md', text: 'x' })), 'approval_required');
    const approver = scripted({ outcome: 'allow_session' });
    const gate = gateFor(root, { envelope: 'mine', specs, approver });
    await gate.call('notes.append', { path: 'l.md', text: 'x' });
    assert.equal(approver.requests.length, 1);
    assert.equal(approver.requests[0].title, 'notes.append: l.md (locked)');
    assert.equal(approver.requests[0].decision.sentence, 'approve: l.md is locked');
    await gate.call('notes.append', { path: 'l.md', text: 'y' });
    assert.equal(approver.requests.length, 1, 'the session answers the second time');
    assert.equal(read(root, 'l.md'), 'LOCKED\nx\ny\n');
  });

  test('an approver brought by the call answers for it, over the gate\'s', async () => {
    const root = workspace();
    const gates = scripted({ outcome: 'reject' });
    const own = scripted({ outcome: 'allow_once' });
    const r = await gateFor(root, { approver: gates }).call('notes.append', { path: 'a.md', text: 'x' }, { approver: own });
    assert.equal(r.approvedBy, 'human');
    assert.deepEqual([gates.requests.length, own.requests.length], [0, 1]);
  });
});

test('a built-in plan refuses what its run would refuse: local_shell\'s timeout is bad_args before anyone is asked', async () => {
  const root = workspace();
  const approver = scripted({ outcome: 'allow_once' });
  const env = buildEnvelope('ask_always', SHIPPED_ENVELOPES, FLOOR_RULES);
  const gate = new Gate({ envelope: env, approver }).add(new LocalShell({ root }));
  assert.equal(await code(gate.call('local_shell', { command: 'touch made.txt', timeout: 'soon' })), 'bad_args');
  assert.equal(approver.requests.length, 0);
  assert.equal(fs.existsSync(path.join(root, 'made.txt')), false);
});
