import { Controller, Get } from '@nestjs/common';
import { OptionService } from './option.service.js';
import { StatusService } from './status.service.js';

/** Public site information the console reads before anyone logs in. */
@Controller('api')
export class StatusController {
  constructor(
    private readonly status: StatusService,
    private readonly options: OptionService,
  ) {}

  @Get('status')
  getStatus() {
    return this.status.status();
  }

  @Get('notice')
  notice(): string {
    return this.options.get('Notice');
  }

  @Get('about')
  about(): string {
    return this.options.get('About');
  }

  @Get('home_page_content')
  homePageContent(): string {
    return this.options.get('HomePageContent');
  }

  @Get('user-agreement')
  userAgreement(): string {
    return this.options.get('legal.user_agreement');
  }

  @Get('privacy-policy')
  privacyPolicy(): string {
    return this.options.get('legal.privacy_policy');
  }
}
