import { Controller, Get, Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@gw/core';

/** Where the shell loads each remote from; overridable per remote so a team can deploy its own. */
@Controller('api/console')
export class ConsoleController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('remotes')
  remotes(): Record<string, string> {
    return { ...this.config.console.remotes };
  }
}
