// The `mission` toolset (docs/missions.md, "Tools"): a unit's four tools, or a supervising
// session's three, by what the session is bound to (binding.ts), through the same gate as every
// other call. Its plan puts each call on a missions axis: a unit's own tools and the supervisor's
// list on `missions.own` (allowed unless a tools pattern says otherwise), mission_start on
// `missions.fire`, mission_answer on `missions.answer`, so the envelope of the session decides
// whether it may start units and whether its model may answer them.
import { plainOutput } from '../../../core/contract/schema_plan.ts';
import type { CallPlan, CallView, Toolset, ToolOutput } from '../../../core/contract/toolset.ts';
import { checkArgs } from '../../../core/contract/args.ts';
import type { Axis } from '../../../core/envelope/index.ts';
import { ToolError } from '../../../core/errors.ts';
import type { ToolSpec } from '../../../core/tool.ts';
import type { MissionBinding, SupervisorBinding, UnitBinding } from './binding.ts';
import { MISSION, START_TOOL, SUPERVISOR_TOOLS, UNIT_TOOLS } from './specs.ts';
import { missionAnswer, missionList, missionStart, ownMissions } from './supervisor_tools.ts';
import { missionAsk, missionFinish, missionPlan, missionReport } from './unit_tools.ts';

export { MISSION };

export const MISSION_AXES: Readonly<Record<string, Axis>> = {
  mission_plan: 'missions.own',
  mission_report: 'missions.own',
  mission_ask_attention: 'missions.own',
  mission_finish: 'missions.own',
  mission_list: 'missions.own',
  mission_start: 'missions.fire',
  mission_answer: 'missions.answer',
};

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export class MissionToolset implements Toolset {
  readonly name = MISSION;
  /** a supervisor that started a unit is offered list and answer: looked up at most every 2 s until it has */
  #fired = false;
  #lookedAt = 0;
  constructor(private readonly binding: MissionBinding | undefined) {}

  #hasFired(b: SupervisorBinding): boolean {
    if (this.#fired || Date.now() - this.#lookedAt < 2000) return this.#fired;
    this.#lookedAt = Date.now();
    this.#fired = ownMissions(b, 1).length > 0;
    return this.#fired;
  }

  /** A unit's four; a supervisor's start, and list and answer once it has started a unit. */
  list(): ToolSpec[] {
    const b = this.binding;
    if (!b) return [];
    if (b.role === 'unit') return [...UNIT_TOOLS];
    return this.#hasFired(b) ? [START_TOOL, ...SUPERVISOR_TOOLS] : [START_TOOL];
  }

  view(tool: string, args: Record<string, unknown>): CallView {
    const what =
      tool === 'mission_report' ? `[${str(args.kind) || 'progress'}] ${str(args.summary)}` : tool === 'mission_finish' ? str(args.status) : tool === 'mission_start' ? str(args.intent) : tool === 'mission_ask_attention' ? str(args.summary) : tool === 'mission_answer' ? str(args.askId) : '';
    return { title: `${MISSION}.${tool}${what ? `: ${what.replace(/\s+/g, ' ').slice(0, 120)}` : ''}`, kind: tool === 'mission_list' ? 'read' : 'other', locations: [] };
  }

  #spec(tool: string): ToolSpec {
    const all = [...UNIT_TOOLS, START_TOOL, ...SUPERVISOR_TOOLS];
    const spec = all.find((s) => s.name === tool);
    if (!spec) throw new ToolError('unknown_tool', `No tool \`${MISSION}.${tool}\`. Tools: ${all.map((s) => s.name).join(', ')}.`);
    return spec;
  }

  /** The binding this tool needs, or the refusal saying who may call it. */
  #bound(tool: string): { unit?: UnitBinding; sup?: SupervisorBinding } {
    const b = this.binding;
    const unitTool = UNIT_TOOLS.some((s) => s.name === tool);
    if (unitTool) {
      if (b?.role !== 'unit') throw new ToolError('bad_args', 'mission tools are only available to a unit dispatched on a mission (`cxl run`, `cxl mission fire`, /mission).');
      return { unit: b };
    }
    if (b?.role !== 'supervisor') {
      throw new ToolError('bad_args', `${MISSION}.${tool} is only available to a session that supervises missions${b?.role === 'unit' ? '; a unit may not start or answer units of its own' : ''}.`);
    }
    return { sup: b };
  }

  plan(tool: string, args: Record<string, unknown>): CallPlan {
    const spec = this.#spec(tool);
    this.#bound(tool);
    const checked = checkArgs(`${MISSION}.${tool}`, spec.inputSchema, args);
    return {
      facts: { toolset: MISSION, tool, axis: MISSION_AXES[tool] ?? null },
      // mission records live outside the workspace
      effects: 'none',
      scope: { whole: [{ kind: 'tool', tool: `${MISSION}.${tool}` }] },
      locations: [],
      keepsNames: true,
      approval: async () => ({ title: this.view(tool, args).title, detail: this.#shown(tool, args) }),
      run: (ctx) => this.call(tool, checked, { signal: ctx.signal, ...(ctx.direct ? { direct: true as const } : {}) }),
    };
  }

  /** What a person is shown before a unit starts or a unit's question is answered. */
  #shown(tool: string, args: Record<string, unknown>): string[] {
    if (tool === 'mission_start') return [`intent: ${str(args.intent)}`, `agent: ${str(args.agent) || 'run'}`, `envelope: ${str(args.envelope) || '(the default mission envelope)'}`];
    if (tool === 'mission_answer') {
      const b = this.binding as SupervisorBinding;
      let q = '';
      try {
        q = b.asks.get(str(args.askId))?.summary ?? '';
      } catch {
        /* not an ask id: the call refuses it */
      }
      return [`question: ${q || '(unknown ask)'}`, `answer: ${str(args.answer)}`];
    }
    return [JSON.stringify(args)];
  }

  /** `direct`: a person typed it (/mission), so the envelope it names is theirs to grant. */
  async call(tool: string, args: Record<string, unknown>, opts: { signal?: AbortSignal; direct?: true } = {}): Promise<unknown> {
    this.#spec(tool);
    const { unit, sup } = this.#bound(tool);
    const signal = opts.signal ?? new AbortController().signal;
    switch (tool) {
      case 'mission_plan':
        return missionPlan(unit!, args);
      case 'mission_report':
        return missionReport(unit!, args);
      case 'mission_ask_attention':
        return missionAsk(unit!, args, signal);
      case 'mission_finish':
        return missionFinish(unit!, args);
      case 'mission_start':
        this.#fired = true;
        return missionStart(sup!, args, signal, opts.direct ? 'person' : 'model');
      case 'mission_list':
        return missionList(sup!);
      default:
        return missionAnswer(sup!, args);
    }
  }

  output(_tool: string, result: unknown): ToolOutput {
    return plainOutput(result);
  }
}
