// How much a session mode lets the agent do unasked, told from its id and name, for the colour the
// status line gives it: low (reads only, asks for everything), middle (asks before writes), high
// (writes or runs without asking). Agents name their modes freely, so this reads the words.
import type { SessionMode } from '@agentclientprotocol/sdk';

export type Risk = 'low' | 'mid' | 'high';

const HIGH = /auto|accept|bypass|yolo|full|danger|dont.?ask|no.?ask|trust|write/i;
const LOW = /read|plan|strict|ask.?always|safe|review/i;

export function modeRisk(mode: Pick<SessionMode, 'id' | 'name'> | undefined): Risk {
  if (!mode) return 'mid';
  const words = `${mode.id} ${mode.name}`;
  if (HIGH.test(words)) return 'high';
  if (LOW.test(words)) return 'low';
  return 'mid';
}

/** The theme's colour name for a risk. */
export const RISK_COLOR: Record<Risk, string> = { low: 'risk_low', mid: 'risk_mid', high: 'risk_high' };
