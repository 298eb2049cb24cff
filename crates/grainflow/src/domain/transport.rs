//! How the ranks of a run shared among processes talk: an all-to-all exchange of byte
//! messages, a swap between the ranks that share grains, whether a flag holds on some rank
//! and the largest of numbers; over MPI (`mpi.rs`, the `mpi` feature) or, for tests, between threads of one process
//! ([`threads`]). Numbers travel as their bits, so a copy is its original to the bit.

use std::sync::{Arc, Barrier, Mutex};

use glam::DVec3;

/// The ranks' collectives. Every rank calls each of them together, in the same order.
pub trait Transport {
    /// This rank, from 0.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Sends `out[r]` to every rank r (this rank's own entry comes back to it) and returns
    /// what every rank sent here, by rank.
    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
    /// [`Transport::exchange`] between the ranks that have something to say to each other,
    /// their messages' lengths known to both sides: `out[r]` goes to rank r when it is not
    /// empty, and `expect[r]` bytes come from rank r (none when 0); a rank waits on no one it
    /// has nothing to trade with, so that each step's exchange follows the neighbours only.
    fn swap(&mut self, out: Vec<Vec<u8>>, expect: &[usize]) -> Vec<Vec<u8>> {
        let got = self.exchange(out);
        debug_assert!(got.iter().zip(expect).all(|(m, &n)| m.len() == n));
        got
    }
    /// Whether `flag` holds on some rank.
    fn any(&mut self, flag: bool) -> bool {
        all_gather(self, vec![u8::from(flag)])
            .iter()
            .any(|m| m.first() == Some(&1))
    }
    /// The largest of every rank's `x[i]`, for each i (every rank gives as many), NaN
    /// ignored: a maximum of floats is exact, so in any order the same.
    fn max(&mut self, x: &[f64]) -> Vec<f64> {
        let mut w = Writer::default();
        x.iter().for_each(|&v| w.f64(v));
        let mut most = vec![f64::NEG_INFINITY; x.len()];
        for m in all_gather(self, w.0) {
            let mut r = Reader(&m);
            most.iter_mut().for_each(|v| *v = v.max(r.f64()));
        }
        most
    }
}

/// The same message to every rank; what every rank sent, by rank.
pub fn all_gather<T: Transport + ?Sized>(t: &mut T, message: Vec<u8>) -> Vec<Vec<u8>> {
    t.exchange(vec![message; t.size()])
}

/// A rank's transport that keeps the wall time its calls took: the time this rank waited for
/// the others (and copied their messages), which balancing by time leaves out of its work.
pub(crate) struct Clocked {
    inner: Box<dyn Transport>,
    /// Seconds in the calls so far.
    pub waited: f64,
}

impl Clocked {
    pub fn new(inner: Box<dyn Transport>) -> Clocked {
        Clocked { inner, waited: 0.0 }
    }

    /// `call` on the transport within, its wall time counted.
    fn clocked<R>(&mut self, call: impl FnOnce(&mut dyn Transport) -> R) -> R {
        let start = std::time::Instant::now();
        let got = call(&mut *self.inner);
        self.waited += start.elapsed().as_secs_f64();
        got
    }
}

impl Transport for Clocked {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.clocked(|t| t.exchange(out))
    }
    fn swap(&mut self, out: Vec<Vec<u8>>, expect: &[usize]) -> Vec<Vec<u8>> {
        self.clocked(|t| t.swap(out, expect))
    }
    fn any(&mut self, flag: bool) -> bool {
        self.clocked(|t| t.any(flag))
    }
    fn max(&mut self, x: &[f64]) -> Vec<f64> {
        self.clocked(|t| t.max(x))
    }
}

/// Ranks as threads of one process, for tests: `threads(n)` gives the n ends.
pub struct Threads {
    rank: usize,
    board: Arc<Board>,
}

/// The messages in flight between threads, `[to][from]`, and the barrier they meet at.
struct Board {
    slots: Mutex<Vec<Vec<Vec<u8>>>>,
    barrier: Barrier,
}

/// The ends of `n` ranks as threads of one process.
pub fn threads(n: usize) -> Vec<Threads> {
    let board = Arc::new(Board {
        slots: Mutex::new(vec![vec![Vec::new(); n]; n]),
        barrier: Barrier::new(n),
    });
    (0..n)
        .map(|rank| Threads {
            rank,
            board: board.clone(),
        })
        .collect()
}

impl Transport for Threads {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.board.barrier_size()
    }

    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        {
            let mut slots = self.board.slots.lock().expect("no thread panicked");
            for (to, m) in out.into_iter().enumerate() {
                slots[to][self.rank] = m;
            }
        }
        self.board.barrier.wait();
        let got = {
            let mut slots = self.board.slots.lock().expect("no thread panicked");
            let n = slots.len();
            std::mem::replace(&mut slots[self.rank], vec![Vec::new(); n])
        };
        // No rank writes the next round before every rank has read this one.
        self.board.barrier.wait();
        got
    }
}

impl Board {
    fn barrier_size(&self) -> usize {
        self.slots.lock().expect("no thread panicked").len()
    }
}

/// A message being written: numbers as their little-endian bits.
#[derive(Default)]
pub(crate) struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn vec3(&mut self, v: DVec3) {
        for x in v.to_array() {
            self.f64(x);
        }
    }
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// A message being read, in the order it was written. The messages are this program's own,
/// so a short one is a defect: reading past the end panics.
pub(crate) struct Reader<'a>(pub &'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (a, b) = self.0.split_at(N);
        self.0 = b;
        a.try_into().expect("N bytes")
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    pub fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    pub fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }
    pub fn vec3(&mut self) -> DVec3 {
        DVec3::new(self.f64(), self.f64(), self.f64())
    }
    pub fn str(&mut self) -> String {
        let n = self.u64() as usize;
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        String::from_utf8_lossy(a).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_exchange_every_message_with_every_rank() {
        let ends = threads(3);
        let got: Vec<Vec<Vec<u8>>> = std::thread::scope(|s| {
            let runs: Vec<_> = ends
                .into_iter()
                .map(|mut t| {
                    s.spawn(move || {
                        let r = t.rank() as u8;
                        let first = t.exchange((0..3).map(|to| vec![r, to]).collect());
                        let big = t.max(&[f64::from(r), -f64::from(r), f64::NAN]);
                        assert_eq!(big[..2], [2.0, 0.0]);
                        assert_eq!(big[2], f64::NEG_INFINITY);
                        assert!(t.any(r == 1) && !t.any(r == 7));
                        // Each rank trades with the next only, r + 1 bytes.
                        let next = (r as usize + 1) % 3;
                        let prev = (r as usize + 2) % 3;
                        let mut out = vec![Vec::new(); 3];
                        out[next] = vec![r; r as usize + 1];
                        let mut expect = [0; 3];
                        expect[prev] = prev + 1;
                        let got = t.swap(out, &expect);
                        assert_eq!(got[prev], vec![prev as u8; prev + 1]);
                        first
                    })
                })
                .collect();
            runs.into_iter().map(|h| h.join().expect("ran")).collect()
        });
        for (to, got) in got.iter().enumerate() {
            for (from, m) in got.iter().enumerate() {
                assert_eq!(m, &vec![from as u8, to as u8]);
            }
        }
    }
}
