import { useEffect, useState } from 'react';
import { BalanceCard } from '../self/BalanceCard';
import { useSelf } from '../self/useSelf';
import { walletApi, type TopUpInfo } from './api';
import { OnlineTopUpCard } from './OnlineTopUpCard';
import { RedeemCard } from './RedeemCard';
import { TopUpHistory } from './TopUpHistory';

/** /topup: balance, redeem a code, pay online, and the orders so far. */
export function WalletPage() {
  const self = useSelf();
  const [info, setInfo] = useState<TopUpInfo | null>(null);
  const [refreshKey, setRefreshKey] = useState(0);
  useEffect(() => {
    walletApi.info().then(setInfo, () => undefined);
  }, []);
  const onRedeemed = () => {
    void self.reload();
    setRefreshKey((key) => key + 1);
  };
  return (
    <div data-testid="wallet-page">
      <BalanceCard user={self.user} />
      <RedeemCard topUpLink={info?.topup_link ?? ''} onRedeemed={onRedeemed} />
      {info && <OnlineTopUpCard info={info} />}
      <TopUpHistory refreshKey={refreshKey} payMethods={info?.pay_methods ?? []} />
    </div>
  );
}
