import { Injectable, Logger } from '@nestjs/common';
import { outboundFetch } from '@gw/core';
import { OptionService } from '@gw/option';

export interface UptimeMonitor {
  name: string;
  uptime: number;
  status: number;
  group?: string;
}

export interface UptimeGroupResult {
  categoryName: string;
  monitors: UptimeMonitor[];
}

interface StatusPage {
  publicGroupList?: { name?: string; monitorList?: { id: number; name: string }[] }[];
}

interface Heartbeats {
  heartbeatList?: Record<string, { status: number }[]>;
  uptimeList?: Record<string, number>;
}

/**
 * new-api's `/api/uptime/status`: for each configured Uptime Kuma status page, its monitors with the
 * 24-hour uptime and the latest heartbeat status. A page that cannot be read gives an empty group,
 * never an error. Fetched through the checked outbound client (no private addresses, 10 s, 1 MiB).
 */
@Injectable()
export class UptimeKumaService {
  private readonly logger = new Logger('UptimeKuma');

  constructor(private readonly options: OptionService) {}

  async status(): Promise<UptimeGroupResult[]> {
    const groups = this.options.get('console_setting.uptime_kuma_groups');
    return Promise.all(groups.map((group) => this.group(group)));
  }

  private async group(config: { categoryName: string; url: string; slug: string }): Promise<UptimeGroupResult> {
    const result: UptimeGroupResult = { categoryName: config.categoryName, monitors: [] };
    if (!config.url || !config.slug) return result;
    const base = config.url.replace(/\/+$/, '');
    const slug = encodeURIComponent(config.slug);
    try {
      const [page, beats] = await Promise.all([
        this.getJson<StatusPage>(`${base}/api/status-page/${slug}`),
        this.getJson<Heartbeats>(`${base}/api/status-page/heartbeat/${slug}`),
      ]);
      for (const publicGroup of page.publicGroupList ?? []) {
        for (const monitor of publicGroup.monitorList ?? []) {
          const id = String(monitor.id);
          const latest = beats.heartbeatList?.[id];
          result.monitors.push({
            name: monitor.name,
            uptime: beats.uptimeList?.[`${id}_24`] ?? 0,
            status: latest?.length ? latest[0]!.status : 0,
            group: publicGroup.name,
          });
        }
      }
    } catch (error) {
      this.logger.warn(`status page ${config.categoryName} unreadable: ${(error as Error).message}`);
      result.monitors = [];
    }
    return result;
  }

  private async getJson<T>(url: string): Promise<T> {
    const res = await outboundFetch(url);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return res.json<T>();
  }
}
