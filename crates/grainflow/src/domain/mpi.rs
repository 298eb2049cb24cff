//! The ranks' collectives over MPI (the `mpi` feature, with rsmpi): an all-to-all of byte
//! messages, their lengths exchanged first; a swap of messages of known lengths between the
//! ranks that share grains, by non-blocking sends and receives; a flag's logical or and the
//! largest of numbers, each by one all-reduce.
//!
//! MPI counts a call's bytes and offsets in 32-bit integers, so no call may carry 2 GiB on a
//! rank. Messages are cut into pieces (of at most 2³⁰ bytes over the ranks): an all-to-all
//! whose longest message (on any rank) is longer goes in as many rounds as it needs, and a
//! swap sends and receives the pieces of a message one after another.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

use super::Transport;

/// The most bytes one call of MPI carries on a rank: half what its 32-bit counts can say.
const MOST: usize = 1 << 30;

/// This process's end of MPI's world communicator; MPI is finalised when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
    /// The longest piece of a message one call carries (bytes): [`MOST`] over the ranks, so
    /// that a round of the all-to-all stays within it.
    piece: usize,
}

impl Mpi {
    /// Initialises MPI; None when it was initialised already.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        let piece = MOST / world.size().max(1) as usize;
        Some(Mpi {
            world,
            _universe: universe,
            piece,
        })
    }

    /// Messages cut into pieces of at most `bytes` (at least one, at most the default): many
    /// rounds from small messages, for tests of what large runs meet.
    pub fn with_piece(mut self, bytes: usize) -> Mpi {
        self.piece = bytes.clamp(1, self.piece);
        self
    }

    /// One round of the all-to-all: `pieces[r]` to rank r, `counts[r]` bytes from rank r,
    /// appended to `got[r]`.
    fn round(&self, pieces: &[&[u8]], counts: &[Count], got: &mut [Vec<u8>]) {
        let send_counts: Vec<Count> = pieces.iter().map(|m| m.len() as Count).collect();
        let (send_at, recv_at) = (offsets(&send_counts), offsets(counts));
        // One byte more than the pieces on either side: MPI refuses an empty buffer, which
        // every rank has when no rank sends anything.
        let mut sent: Vec<u8> = pieces.concat();
        sent.push(0);
        let total: Count = counts.iter().sum();
        let mut recv = vec![0u8; total as usize + 1];
        {
            let send = Partition::new(&sent[..], &send_counts[..], &send_at[..]);
            let mut into = PartitionMut::new(&mut recv[..], counts, &recv_at[..]);
            self.world.all_to_all_varcount_into(&send, &mut into);
        }
        for ((m, &a), &c) in got.iter_mut().zip(&recv_at).zip(counts) {
            m.extend_from_slice(&recv[a as usize..(a + c) as usize]);
        }
    }
}

/// The offsets of messages of lengths `counts` laid end to end.
fn offsets(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

/// The bytes of a message `len` long that round `k` carries, pieces of `piece` bytes.
fn cut(len: usize, piece: usize, k: usize) -> std::ops::Range<usize> {
    (k * piece).min(len)..((k + 1) * piece).min(len)
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let n = self.size();
        // Each message's length, with the longest this rank sends: every rank learns the
        // longest of all, and so makes as many rounds as the others.
        let longest = out.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let said: Vec<u64> = out.iter().flat_map(|m| [m.len() as u64, longest]).collect();
        let mut heard = vec![0u64; 2 * n];
        self.world.all_to_all_into(&said[..], &mut heard[..]);
        let lengths: Vec<usize> = heard.iter().step_by(2).map(|&l| l as usize).collect();
        let longest = heard.iter().skip(1).step_by(2).max().copied().unwrap_or(0) as usize;
        let piece = self.piece;
        let mut got: Vec<Vec<u8>> = lengths.iter().map(|&l| Vec::with_capacity(l)).collect();
        for k in 0..longest.div_ceil(piece).max(1) {
            let pieces: Vec<&[u8]> = out.iter().map(|m| &m[cut(m.len(), piece, k)]).collect();
            let counts: Vec<Count> = (lengths.iter())
                .map(|&l| cut(l, piece, k).len() as Count)
                .collect();
            self.round(&pieces, &counts, &mut got);
        }
        got
    }

    fn swap(&mut self, out: Vec<Vec<u8>>, expect: &[usize]) -> Vec<Vec<u8>> {
        let me = self.rank();
        let mut got: Vec<Vec<u8>> = expect.iter().map(|&n| vec![0u8; n]).collect();
        got[me].clone_from(&out[me]);
        let (world, piece) = (&self.world, self.piece);
        // A message's pieces in order (none for an empty one): MPI matches the receives posted
        // between two ranks to the sends in the order both were posted.
        mpi::request::scope(|scope| {
            let mut requests = Vec::new();
            for (r, m) in got.iter_mut().enumerate().filter(|(r, _)| *r != me) {
                let from = world.process_at_rank(r as mpi::Rank);
                for m in m.chunks_mut(piece) {
                    requests.push(from.immediate_receive_into(scope, m));
                }
            }
            let mut sends = Vec::new();
            for (r, m) in out.iter().enumerate().filter(|(r, _)| *r != me) {
                let to = world.process_at_rank(r as mpi::Rank);
                for m in m.chunks(piece) {
                    sends.push(to.immediate_send(scope, m));
                }
            }
            requests.into_iter().for_each(|q| {
                q.wait();
            });
            sends.into_iter().for_each(|q| {
                q.wait();
            });
        });
        got
    }

    fn max(&mut self, x: &[f64]) -> Vec<f64> {
        // MPI's maximum need not pass NaN by, as the trait's does: it never meets one.
        let x: Vec<f64> = (x.iter())
            .map(|&v| if v.is_nan() { f64::NEG_INFINITY } else { v })
            .collect();
        let mut most = vec![0.0; x.len()];
        (self.world).all_reduce_into(&x[..], &mut most[..], SystemOperation::max());
        most
    }

    fn any(&mut self, flag: bool) -> bool {
        let mut some = 0u8;
        (self.world).all_reduce_into(&u8::from(flag), &mut some, SystemOperation::max());
        some == 1
    }
}
