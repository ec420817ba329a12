//! Threads for the delay line, kept for reuse: a connection needs four (a reader and a writer
//! each way) for as long as it is open, and creating them when it is accepted cost 20-40 µs
//! each on this project's 2-core machine, CPU the client that just connected waits for (a
//! `lan` round trip is 200 µs). A thread waits a minute for its next job, then exits.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send>;

const IDLE_FOR: Duration = Duration::from_secs(60);
/// Threads that only move bytes need little stack.
const STACK: usize = 256 * 1024;

pub struct Pool {
    jobs: Sender<Job>,
    queue: Arc<Mutex<Receiver<Job>>>,
    /// Threads waiting for a job that no job sent yet is promised to: every job sent has a
    /// thread to run it, so a connection's reader never waits for its writer to start.
    idle: Arc<AtomicUsize>,
}

impl Pool {
    pub fn new() -> Pool {
        let (jobs, queue) = mpsc::channel();
        Pool {
            jobs,
            queue: Arc::new(Mutex::new(queue)),
            idle: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs `job` on an idle thread, or on a new one when none is idle.
    pub fn run(&self, job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
        let mut idle = self.idle.load(Ordering::SeqCst);
        while idle > 0 {
            match self
                .idle
                .compare_exchange(idle, idle - 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                // A waiting thread is claimed; the queue's receiver lives as long as the pool.
                Ok(_) => {
                    return self
                        .jobs
                        .send(Box::new(job))
                        .map_err(|_| std::io::Error::other("the delay line's threads are gone"))
                }
                Err(now) => idle = now,
            }
        }
        let (queue, idle) = (self.queue.clone(), self.idle.clone());
        thread::Builder::new()
            .name("fbs3-delay".into())
            .stack_size(STACK)
            .spawn(move || {
                job();
                serve(&queue, &idle);
            })
            .map(|_| ())
    }
}

/// Waits for jobs until none comes for [`IDLE_FOR`] and no job is promised to this thread.
fn serve(queue: &Mutex<Receiver<Job>>, idle: &AtomicUsize) {
    idle.fetch_add(1, Ordering::SeqCst);
    loop {
        let next = match queue.lock() {
            Ok(queue) => queue.recv_timeout(IDLE_FOR),
            Err(_) => return,
        };
        match next {
            Ok(job) => {
                job();
                idle.fetch_add(1, Ordering::SeqCst);
            }
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {
                // Leave unless every waiting thread is promised a job: then one is on its way.
                let mut now = idle.load(Ordering::SeqCst);
                while now > 0 {
                    match idle.compare_exchange(now, now - 1, Ordering::SeqCst, Ordering::SeqCst) {
                        Ok(_) => return,
                        Err(changed) => now = changed,
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Barrier;
    use std::time::Instant;

    #[test]
    fn jobs_that_wait_for_each_other_all_run_and_threads_are_reused() {
        let pool = Pool::new();
        let threads = Arc::new(Mutex::new(HashSet::new()));
        for _ in 0..3 {
            // Four jobs that each wait for all the others: each needs a thread of its own.
            let barrier = Arc::new(Barrier::new(5));
            for _ in 0..4 {
                let (barrier, threads) = (barrier.clone(), threads.clone());
                pool.run(move || {
                    threads.lock().unwrap().insert(thread::current().id());
                    barrier.wait();
                })
                .unwrap();
            }
            barrier.wait();
            let started = Instant::now();
            while pool.idle.load(Ordering::SeqCst) < 4 {
                assert!(started.elapsed() < Duration::from_secs(10));
                thread::sleep(Duration::from_millis(1));
            }
        }
        assert_eq!(threads.lock().unwrap().len(), 4);
    }
}
