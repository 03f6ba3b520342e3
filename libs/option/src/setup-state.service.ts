import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SetupRepository } from './setup.repository.js';

/** Whether the first-run wizard has been completed; read by /api/status on every call, so cached. */
@Injectable()
export class SetupStateService implements OnModuleInit {
  private done = false;

  constructor(private readonly repository: SetupRepository) {}

  async onModuleInit(): Promise<void> {
    this.done = await this.repository.exists();
    // An adopted installation (one-api, or new-api from before its setup table) already has its root:
    // record the setup as done, as new-api does, so the wizard can never create a second root.
    if (!this.done && (await this.repository.rootUserExists())) await this.markDone('adopted');
  }

  isDone(): boolean {
    return this.done;
  }

  /** Re-reads the table: another instance may have completed the setup. */
  async refresh(): Promise<boolean> {
    if (!this.done) this.done = await this.repository.exists();
    return this.done;
  }

  async markDone(version: string, manager?: EntityManager): Promise<void> {
    await this.repository.insert(version, manager);
    this.done = true;
  }
}
