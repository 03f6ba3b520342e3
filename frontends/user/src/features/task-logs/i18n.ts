import { registerNamespace } from '@console/kit';

// The drawing and task log pages keep their words in their own namespace (registered once, on import).
const en = {
  filters: {
    channelId: 'Channel ID',
    mjId: 'Task ID',
    taskId: 'Task ID',
    start: 'Start time',
    end: 'End time',
    query: 'Query',
    reset: 'Reset',
  },
  columns: {
    submitTime: 'Submit time',
    finishTime: 'Finish time',
    timeSpent: 'Time spent',
    channel: 'Channel',
    type: 'Type',
    platform: 'Platform',
    taskId: 'Task ID',
    code: 'Submit result',
    status: 'Status',
    progress: 'Progress',
    image: 'Result image',
    prompt: 'Prompt',
    promptEn: 'PromptEn',
    failReason: 'Failure reason',
  },
  drawing: {
    title: 'Drawing logs',
    callbackNotice: 'Midjourney callbacks are off: results arrive by polling every 15 seconds, and some proxies may report late. Turn on MjNotifyEnabled in the operation settings to forward callbacks.',
    viewImage: 'View image',
    imageTitle: 'Result image',
  },
  tasks: {
    title: 'Task logs',
    detailTitle: 'Task detail',
  },
  code: { 1: 'Submitted', 21: 'Waiting', 22: 'Duplicate submit', 0: 'Not submitted', other: 'Unknown' },
  status: {
    SUCCESS: 'Success', NOT_START: 'Not started', SUBMITTED: 'Queued', IN_PROGRESS: 'In progress', FAILURE: 'Failed', MODAL: 'Waiting for input',
    QUEUED: 'Queued', UNKNOWN: 'Unknown', submitting: 'Submitting', other: 'Unknown',
  },
  action: {
    IMAGINE: 'Imagine', UPSCALE: 'Upscale', VARIATION: 'Variation', HIGH_VARIATION: 'Strong variation', LOW_VARIATION: 'Subtle variation', PAN: 'Pan',
    DESCRIBE: 'Describe', BLEND: 'Blend', UPLOAD: 'Upload', SHORTEN: 'Shorten', REROLL: 'Reroll', INPAINT: 'Inpaint', ZOOM: 'Zoom',
    CUSTOM_ZOOM: 'Custom zoom', MODAL: 'Modal', SWAP_FACE: 'Swap face', VIDEO: 'Video', EDITS: 'Edits',
    MUSIC: 'Music', LYRICS: 'Lyrics', generate: 'Video', remix: 'Video remix', other: 'Unknown',
  },
  platform: { suno: 'Suno', other: 'Unknown' },
  failReasonTitle: 'Failure reason',
  copied: 'Copied',
  none: 'None',
  seconds: '{{n}} s',
};

const zh: typeof en = {
  filters: { channelId: '渠道 ID', mjId: '任务 ID', taskId: '任务 ID', start: '开始时间', end: '结束时间', query: '查询', reset: '重置' },
  columns: {
    submitTime: '提交时间', finishTime: '结束时间', timeSpent: '花费时间', channel: '渠道', type: '类型', platform: '平台', taskId: '任务ID',
    code: '提交结果', status: '任务状态', progress: '进度', image: '结果图片', prompt: 'Prompt', promptEn: 'PromptEn', failReason: '失败原因',
  },
  drawing: {
    title: '绘图日志',
    callbackNotice: '当前未开启 Midjourney 回调：结果每 15 秒轮询一次，部分代理可能延迟上报。可在运营设置中开启 MjNotifyEnabled 以转发回调。',
    viewImage: '查看图片',
    imageTitle: '结果图片',
  },
  tasks: { title: '任务日志', detailTitle: '任务详情' },
  code: { 1: '已提交', 21: '等待中', 22: '重复提交', 0: '未提交', other: '未知' },
  status: {
    SUCCESS: '成功', NOT_START: '未启动', SUBMITTED: '队列中', IN_PROGRESS: '执行中', FAILURE: '失败', MODAL: '窗口等待',
    QUEUED: '排队中', UNKNOWN: '未知', submitting: '提交中', other: '未知',
  },
  action: {
    IMAGINE: '绘图', UPSCALE: '放大', VARIATION: '变换', HIGH_VARIATION: '强变换', LOW_VARIATION: '弱变换', PAN: '平移', DESCRIBE: '图生文',
    BLEND: '图混合', UPLOAD: '上传文件', SHORTEN: '缩词', REROLL: '重绘', INPAINT: '局部重绘', ZOOM: '变焦', CUSTOM_ZOOM: '自定义变焦',
    MODAL: '窗口处理', SWAP_FACE: '换脸', VIDEO: '视频', EDITS: '编辑', MUSIC: '生成音乐', LYRICS: '生成歌词', generate: '生成视频', remix: '视频重混',
    other: '未知',
  },
  platform: { suno: 'Suno', other: '未知' },
  failReasonTitle: '失败原因',
  copied: '已复制',
  none: '无',
  seconds: '{{n}} 秒',
};

export const TASK_LOG_NS = 'tasklog';
registerNamespace(TASK_LOG_NS, { en, zh });
