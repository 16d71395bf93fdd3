import { describeEventStoreContract } from '../../testing/event-store-contract.js';
import { MemoryEventStore } from './events.js';

describeEventStoreContract('memory', { create: () => new MemoryEventStore() });
