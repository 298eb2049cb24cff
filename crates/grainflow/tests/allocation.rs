//! A soft-sphere step allocates no memory between neighbour rebuilds, on one thread or two:
//! every buffer it writes is sized when the list is built. This file holds one test only, as
//! it counts the allocations of the whole process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use grainflow::scene::Scene;
use grainflow::sim::Simulation;

/// The system allocator, counting the allocations made.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

#[test]
fn a_soft_step_between_rebuilds_allocates_nothing() {
    // S1, the peers' settled bed on its floor (20 000 Hertz–Mindlin grains, periodic in x and
    // y): pairs within and across blocks, wall contacts and the gather all take part.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/bench");
    let toml = std::fs::read_to_string(dir.join("s1.toml")).expect("reads s1.toml");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| {
            let scene = Scene::from_toml(&toml, "s1").expect("parses");
            let mut sim = Simulation::new(scene, &dir).expect("builds");
            let mut quiet = 0;
            for step in 0..60 {
                let (builds, before) = (
                    sim.world.neighbors.builds,
                    ALLOCATIONS.load(Ordering::SeqCst),
                );
                sim.step().expect("stable");
                let made = ALLOCATIONS.load(Ordering::SeqCst) - before;
                // The first steps may size buffers; after them, a step without a rebuild
                // must allocate nothing.
                if step >= 5 && sim.world.neighbors.builds == builds {
                    assert_eq!(
                        made, 0,
                        "step {step} on {threads} threads allocated {made} times"
                    );
                    quiet += 1;
                }
            }
            assert!(quiet > 40, "{quiet} steps without a rebuild");
        });
    }
}
