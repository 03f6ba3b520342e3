import { Controller, Get } from '@nestjs/common';
import { RootRoute } from '@gw/core';
import type { ReleaseCheckView } from '@gw/contracts';
import { ReleaseCheckService } from './release-check.service.js';

/** The Other settings tab's "check for updates": root only, as the settings page it sits on. */
@Controller('api/status')
@RootRoute()
export class ReleaseCheckController {
  constructor(private readonly releases: ReleaseCheckService) {}

  @Get('update')
  check(): Promise<ReleaseCheckView> {
    return this.releases.check();
  }
}
