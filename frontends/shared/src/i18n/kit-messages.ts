import type { NamespaceResources } from './setup';

/** Messages the kit itself shows: the error catalogue, copy fallbacks, generic toasts. */
export const kitResources: NamespaceResources = {
  en: {
    error: {
      tooManyRequests: 'Error: too many requests, try later',
      internal: 'Error: internal server error, contact admin',
      demoOnly: 'this site is demo only, no server',
      generic: 'Error: {{message}}',
      network: 'Unable to connect to server',
    },
    copy: {
      failedTitle: 'Unable to copy to clipboard, please copy manually',
      failed: 'unable to copy, please copy manually',
      done: 'Copied',
    },
    action: { ok: 'OK', cancel: 'Cancel', retry: 'Retry', confirm: 'Confirm', submit: 'Submit' },
    done: 'operation done',
    unlimited: 'unlimited',
    never: 'never',
    pending: 'This page is not available yet.',
  },
  zh: {
    error: {
      tooManyRequests: '错误：请求次数过多，请稍后再试！',
      internal: '错误：服务器内部错误，请联系管理员！',
      demoOnly: '本站仅作演示之用，无服务端！',
      generic: '错误：{{message}}',
      network: '无法连接到服务器',
    },
    copy: {
      failedTitle: '无法复制到剪贴板，请手动复制',
      failed: '无法复制，请手动复制',
      done: '已复制',
    },
    action: { ok: '确定', cancel: '取消', retry: '重试', confirm: '确认', submit: '提交' },
    done: '操作成功完成！',
    unlimited: '无限制',
    never: '永不过期',
    pending: '该页面暂未开放',
  },
};
