import type { en } from './en';

export const zh: Record<keyof typeof en, typeof en[keyof typeof en]> = {
  pages: { playground: '操练场', chat: '聊天', chat2link: '聊天链接' },
  group: '分组', userGroup: '用户分组', model: '模型', temperature: '温度（{{value}}）', maxTokens: '最大 Token 数（0 为不限制）',
  systemPrompt: '系统提示词', empty: '发送一条消息开始对话', placeholder: '输入消息，Enter 发送，Shift+Enter 换行',
  send: '发送', stop: '停止', clear: '清除上下文', thinking: '思考中…', showSettings: '显示设置', hideSettings: '隐藏设置',
  parseFailed: '聊天数据解析失败', expired: '未登录或登录已过期，请重新登录！', networkError: '网络错误，请重试',
};
