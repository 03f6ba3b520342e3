import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, NOT_FOUND_FALLBACK, type AppConfig } from '@gw/core';
import { ConsoleController } from './console.controller.js';
import { frontendRedirect, spaFallback } from './console-static.js';

@Global()
@Module({
  controllers: [ConsoleController],
  providers: [
    {
      provide: NOT_FOUND_FALLBACK,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.console.frontendBaseUrl
          ? frontendRedirect(config.console.frontendBaseUrl)
          : spaFallback(config.console.staticDir, Object.values(config.console.remotes)),
    },
  ],
  exports: [NOT_FOUND_FALLBACK],
})
export class ConsoleModule {}
