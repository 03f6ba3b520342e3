import { Injectable } from '@nestjs/common';
import { UserHooks, type UserAuditEntry } from '@gw/user';
import { LogType, type NewLog } from './log-type.js';
import { LogService } from './log.service.js';

/**
 * The user lib sits below this one, so it cannot write log rows itself: it hands its audit entries (admin
 * quota edits, registration and invite gifts) over through its hooks, and they become new-api's
 * manage (3) and system (4) rows, written in the transaction of the change they describe.
 */
@Injectable()
export class UserAuditLog {
  constructor(hooks: UserHooks, logs: LogService) {
    hooks.onAudit((entry, transaction) => logs.recordNow(toLog(entry), transaction));
  }
}

function toLog(entry: UserAuditEntry): NewLog {
  return {
    userId: entry.userId,
    username: entry.username,
    type: entry.kind === 'manage' ? LogType.Manage : LogType.System,
    content: entry.content,
    // `admin_info` is stripped from the user's own view of the row (log.view.ts): who acted is for administrators.
    other: entry.admin ? { admin_info: { admin_id: entry.admin.id, admin_username: entry.admin.username } } : undefined,
  };
}
