/**
 * Midjourney-proxy request rules, pure: which action a route submits, how plus-style custom ids and
 * "taskId U1" shortcuts map to actions, and the model name each action is priced and routed under.
 */

export type MjRoute =
  | 'imagine'
  | 'change'
  | 'simple-change'
  | 'describe'
  | 'blend'
  | 'modal'
  | 'shorten'
  | 'upload-discord-images'
  | 'action'
  | 'video'
  | 'edits'
  | 'swap-face';

export const MJ_SUBMIT_ROUTES: readonly MjRoute[] = [
  'imagine',
  'change',
  'simple-change',
  'describe',
  'blend',
  'modal',
  'shorten',
  'upload-discord-images',
  'action',
  'video',
  'edits',
];

export const MjAction = {
  Imagine: 'IMAGINE',
  Upscale: 'UPSCALE',
  Variation: 'VARIATION',
  HighVariation: 'HIGH_VARIATION',
  LowVariation: 'LOW_VARIATION',
  Pan: 'PAN',
  Describe: 'DESCRIBE',
  Blend: 'BLEND',
  Upload: 'UPLOAD',
  Shorten: 'SHORTEN',
  Reroll: 'REROLL',
  InPaint: 'INPAINT',
  Zoom: 'ZOOM',
  CustomZoom: 'CUSTOM_ZOOM',
  Modal: 'MODAL',
  SwapFace: 'SWAP_FACE',
  Video: 'VIDEO',
  Edits: 'EDITS',
} as const;

/** Actions that cost nothing (the paid follow-up is the MODAL submit that completes them). */
export const FREE_ACTIONS: ReadonlySet<string> = new Set([MjAction.InPaint, MjAction.CustomZoom]);

/** The model an action is routed and priced under: mj_imagine, mj_upscale, …; face swap is `swap_face`. */
export function mjModelName(action: string): string {
  return action === MjAction.SwapFace ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

/** A parsed submit: the action, and the earlier task it acts on (for follow-up actions). */
export interface MjSubmitPlan {
  action: string;
  /** The mj_id of the task this one derives from; its channel must serve it. */
  originId?: string;
  /** Fields to set on the forwarded body (index, action, taskId for shortcuts). */
  patch: Record<string, unknown>;
}

/** Thrown for a request that cannot be submitted: new-api's code 4 descriptions. */
export class MjRequestError extends Error {}

function str(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  return typeof value === 'string' ? value.trim() : '';
}

/** Reads the submit body of one route into a plan, or throws MjRequestError with new-api's description. */
export function planSubmit(route: MjRoute, body: Record<string, unknown>): MjSubmitPlan {
  switch (route) {
    case 'imagine':
      if (!str(body, 'prompt')) throw new MjRequestError('prompt_is_required');
      return { action: MjAction.Imagine, patch: {} };
    case 'describe':
      return { action: MjAction.Describe, patch: {} };
    case 'edits':
      return { action: MjAction.Edits, patch: {} };
    case 'shorten':
      return { action: MjAction.Shorten, patch: {} };
    case 'blend':
      return { action: MjAction.Blend, patch: {} };
    case 'upload-discord-images':
      return { action: MjAction.Upload, patch: {} };
    case 'swap-face':
      return { action: MjAction.SwapFace, patch: {} };
    case 'change': {
      const taskId = str(body, 'taskId');
      const action = str(body, 'action').toUpperCase();
      if (!taskId) throw new MjRequestError('task_id_is_required');
      if (!action) throw new MjRequestError('action_is_required');
      if (action !== MjAction.Reroll && !Number(body.index)) throw new MjRequestError('index_is_required');
      return { action, originId: taskId, patch: {} };
    }
    case 'simple-change': {
      const content = str(body, 'content');
      if (!content) throw new MjRequestError('content_is_required');
      const parsed = parseSimpleChange(content);
      if (!parsed) throw new MjRequestError('content_parse_failed');
      return { action: parsed.action, originId: parsed.taskId, patch: {} };
    }
    case 'action': {
      const taskId = str(body, 'taskId');
      if (!taskId) throw new MjRequestError('task_id_is_required');
      const parsed = parseCustomId(str(body, 'customId'));
      return { action: parsed.action, originId: taskId, patch: {} };
    }
    case 'modal': {
      const taskId = str(body, 'taskId');
      if (!taskId) throw new MjRequestError('task_id_is_required');
      return { action: MjAction.Modal, originId: taskId, patch: {} };
    }
    case 'video': {
      const taskId = str(body, 'taskId');
      return taskId ? { action: MjAction.Video, originId: taskId, patch: {} } : { action: MjAction.Video, patch: {} };
    }
  }
}

/** "1320098173412546 U2" → upscale #2 of that task; V1–V4 variation; "R" reroll. */
export function parseSimpleChange(content: string): { taskId: string; action: string; index?: number } | undefined {
  const parts = content.trim().split(/\s+/);
  if (parts.length !== 2) return undefined;
  const [taskId, code] = [parts[0]!, parts[1]!.toLowerCase()];
  if (code === 'r') return { taskId, action: MjAction.Reroll };
  const index = Number(code.slice(1));
  if (!/^[uv][1-4]$/.test(code) || !(index >= 1 && index <= 4)) return undefined;
  return { taskId, action: code[0] === 'u' ? MjAction.Upscale : MjAction.Variation, index };
}

/** Midjourney-plus button ids ("MJ::JOB::upsample::2::<hash>", "MJ::Outpaint::…") → the action they run. */
export function parseCustomId(customId: string): { action: string; index: number } {
  if (!customId) throw new MjRequestError('custom_id_is_required');
  const parts = customId.split('::');
  const name = (parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '';
  if (!name) throw new MjRequestError('unknown_action');
  if (name.includes('upsample')) {
    const index = Number(parts[3]);
    if (!Number.isInteger(index)) throw new MjRequestError('index_parse_failed');
    return { action: MjAction.Upscale, index };
  }
  if (name === 'variation') {
    const index = Number(parts[3]);
    if (!Number.isInteger(index)) throw new MjRequestError('index_parse_failed');
    return { action: MjAction.Variation, index };
  }
  if (name === 'low_variation') return { action: MjAction.LowVariation, index: 1 };
  if (name === 'high_variation') return { action: MjAction.HighVariation, index: 1 };
  if (name.includes('pan')) return { action: MjAction.Pan, index: 1 };
  if (name.includes('reroll')) return { action: MjAction.Reroll, index: 1 };
  if (name === 'Outpaint') return { action: MjAction.Zoom, index: 1 };
  if (name === 'CustomZoom') return { action: MjAction.CustomZoom, index: 1 };
  if (name === 'Inpaint') return { action: MjAction.InPaint, index: 1 };
  throw new MjRequestError(`unknown_action:${customId}`);
}

/**
 * The body as forwarded: notifyHook only when MjNotifyEnabled, accountFilter only when
 * MjAccountFilterEnabled, and --fast/--relax/--turbo dropped from the prompt when MjModeClearEnabled.
 */
export function forwardBody(
  body: Record<string, unknown>,
  flags: { notify: boolean; accountFilter: boolean; modeClear: boolean },
): Record<string, unknown> {
  const out = { ...body };
  if (!flags.accountFilter) delete out.accountFilter;
  if (!flags.notify) delete out.notifyHook;
  if (flags.modeClear && typeof out.prompt === 'string') out.prompt = out.prompt.replace(/--fast|--relax|--turbo/g, '');
  return out;
}
