import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { AppConfig } from './config/app-config.js';
import { APP_CONFIG, ConfigModule } from './config/config.module.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { SystemStatusService } from './ops/system-status.service.js';
import { GatewayExceptionFilter } from './http/exception.filter.js';
import { GatewayThrottlerGuard } from './rate-limit/gateway-throttler.guard.js';
import { ClusterThrottlerStorage } from './rate-limit/cluster-throttler.storage.js';
import { clusterBus } from './redis/cluster-bus.js';
import { RedisThrottlerStorage } from './redis/redis-throttler.storage.js';
import { RedisService } from './redis/redis.service.js';

/** The kernel every module stands on: typed config, Redis, the console envelope, the error filter, rate limits and the machine's load. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        ThrottlerModule.forRootAsync({
          inject: [APP_CONFIG, RedisService],
          useFactory: (cfg: AppConfig, redis: RedisService) => {
            const { globalApi, critical, search } = cfg.rateLimits;
            const throttlers = [
              { name: 'global', rule: globalApi },
              { name: 'critical', rule: critical },
              { name: 'search', rule: search },
            ]
              .filter((t) => t.rule.enabled)
              .map((t) => ({ name: t.name, limit: t.rule.limit, ttl: t.rule.duration * 1000, setHeaders: false }));
            // Workers of one cluster count together in the primary when Redis is absent or down.
            const memory = clusterBus.active ? new ClusterThrottlerStorage() : undefined;
            return { throttlers, storage: redis.client ? new RedisThrottlerStorage(redis.client, redis.key('throttle:'), memory) : memory };
          },
        }),
      ],
      providers: [
        RedisService,
        SystemStatusService,
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: GatewayExceptionFilter },
        { provide: APP_GUARD, useClass: GatewayThrottlerGuard },
      ],
      // ThrottlerModule's storage and options, for SearchLimitGuard on the routes that use it.
      exports: [RedisService, SystemStatusService, ConfigModule, ThrottlerModule],
    };
  }
}
