import type { RedemptionView, TopUpView } from '@gw/contracts';
import type { RedemptionEntity } from './redemption.entity.js';
import { TopUpStatus, type TopUpEntity } from './top-up.entity.js';

export function toRedemptionView(row: RedemptionEntity): RedemptionView {
  return {
    id: row.id,
    user_id: row.userId,
    key: row.key,
    status: row.status,
    name: row.name,
    quota: row.quota,
    created_time: row.createdTime,
    redeemed_time: row.redeemedTime,
    used_user_id: row.usedUserId,
    expired_time: row.expiredTime,
  };
}

export function toTopUpView(row: TopUpEntity): TopUpView {
  const known = Object.values(TopUpStatus) as string[];
  return {
    id: row.id,
    user_id: row.userId,
    amount: row.amount,
    money: Number(row.money) || 0,
    trade_no: row.tradeNo,
    payment_method: row.paymentMethod,
    create_time: row.createTime,
    complete_time: row.completeTime,
    status: (known.includes(row.status) ? row.status : TopUpStatus.Pending) as TopUpView['status'],
  };
}
