import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, BusinessError, Role, type AppConfig } from '@gw/core';
import type { SetupRequest, SetupStatus } from '@gw/contracts';
import { OptionService, SetupStateService } from '@gw/option';
import { UserService } from '@gw/user';

/** Quota a new root user starts with (new-api: 100 000 000 = US$200). */
const ROOT_QUOTA = 100_000_000;

/**
 * The first-run wizard. It creates the root user once; no account is ever created with a default
 * password. The setups row is written first with a fixed id, so two concurrent submissions (even on
 * two instances) cannot both succeed.
 */
@Injectable()
export class SetupService implements OnModuleInit {
  private readonly logger = new Logger('Setup');

  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserService,
    private readonly options: OptionService,
    private readonly state: SetupStateService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A database taken over from new-api has a root user but no setups row: record the setup as done. */
  async onModuleInit(): Promise<void> {
    if (this.state.isDone() || (await this.users.countWithRole(Role.Root)) === 0) return;
    await this.state.markDone(this.config.version).catch(() => undefined);
    this.logger.log('existing root user found; setup marked as done');
  }

  async status(): Promise<SetupStatus> {
    if (await this.state.refresh()) return { status: true, root_init: true, database_type: '' };
    return {
      status: false,
      root_init: (await this.users.countWithRole(Role.Root)) > 0,
      database_type: this.config.database.type,
    };
  }

  async complete(request: SetupRequest): Promise<void> {
    if (await this.state.refresh()) throw new BusinessError('系统已经初始化完成');
    const rootExists = (await this.users.countWithRole(Role.Root)) > 0;
    if (!rootExists) validateRootAccount(request);

    try {
      await this.dataSource.transaction(async (manager) => {
        await this.state.markDone(this.config.version, manager);
        if (!rootExists) {
          await this.users.create(
            { username: request.username, password: request.password, displayName: 'Root User', role: Role.Root, quota: ROOT_QUOTA },
            manager,
          );
        }
      });
    } catch (error) {
      if (await this.state.refresh()) throw new BusinessError('系统已经初始化完成');
      throw error;
    }
    await this.options.updateMany({
      SelfUseModeEnabled: request.SelfUseModeEnabled,
      DemoSiteEnabled: request.DemoSiteEnabled,
    });
  }
}

function validateRootAccount(request: SetupRequest): void {
  if (!request.username) throw new BusinessError('请输入管理员用户名');
  if (request.password.length < 8) throw new BusinessError('密码长度至少为8个字符');
  if (request.password !== request.confirmPassword) throw new BusinessError('两次输入的密码不一致');
}
