import { BalanceCard } from '../self/BalanceCard';
import { useSelf } from '../self/useSelf';
import { AccountCard } from './AccountCard';
import { BindingsCard } from './BindingsCard';
import { InviteCard } from './InviteCard';
import { LanguageCard } from './LanguageCard';
import { ModelsCard } from './ModelsCard';
import { NotificationCard } from './NotificationCard';
import { extraPersonalSections } from './sections';

/** /personal: balance, models, invites, bindings, security sections, account, notifications, language. */
export function PersonalPage() {
  const self = useSelf();
  const reload = () => void self.reload();
  return (
    <div data-testid="personal-page">
      <BalanceCard user={self.user} />
      <ModelsCard />
      <InviteCard user={self.user} onChanged={reload} />
      <BindingsCard user={self.user} onChanged={reload} />
      {extraPersonalSections.map(({ key, Section }) => (
        <Section key={key} />
      ))}
      <AccountCard user={self.user} />
      <NotificationCard user={self.user} onSaved={reload} />
      <LanguageCard />
    </div>
  );
}
