//! What a step reports: contact statistics of a force evaluation and the wall-clock time of
//! each stage.

/// Contact statistics of one force evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactStats {
    /// Touching particle–particle and particle–wall pairs.
    pub contacts: usize,
    /// Of these, the particle–wall contacts.
    pub wall_contacts: usize,
    /// Largest overlap divided by the smaller radius of its pair (−).
    pub max_overlap_ratio: f64,
    /// Index of the particle with that overlap.
    pub worst: usize,
    /// Lowest index of a particle whose force or torque is not finite.
    pub non_finite: Option<usize>,
}

impl ContactStats {
    /// Contacts added; the larger overlap kept (ties to the lower index).
    pub(crate) fn merge(a: Self, b: Self) -> Self {
        // Ties go to the lower index, so the reported particle does not depend on the threads.
        let b_wins = b.max_overlap_ratio > a.max_overlap_ratio
            || (b.max_overlap_ratio == a.max_overlap_ratio && b.worst < a.worst);
        let worst = if b_wins { b } else { a };
        let non_finite = match (a.non_finite, b.non_finite) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        ContactStats {
            contacts: a.contacts + b.contacts,
            wall_contacts: a.wall_contacts + b.wall_contacts,
            non_finite,
            ..worst
        }
    }
}

/// Wall-clock time spent in each stage of the step, for `grainflow bench` and the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StageTimes {
    /// Kicks, drift and stability checks, and the neighbour-list check that rides on the
    /// drift (s).
    pub integrate: f64,
    /// Neighbour-list rebuilds, and their checks where no drift made them (s).
    pub neighbor: f64,
    /// Particle–particle contact forces (s).
    pub pairs: f64,
    /// Particle–wall contact forces (s).
    pub walls: f64,
    /// The pass per particle after them: crossing reactions, body forces and the finite check;
    /// for approximate hard spheres, the overlap correction (s).
    pub gather: f64,
    /// Writing outputs (s): timed by whoever writes them, as the engine writes none.
    pub output: f64,
}

impl StageTimes {
    /// The time spent in each stage since `earlier` was read: a benchmark's steps without the
    /// set-up before them (the first neighbour build counts as a rebuild).
    pub fn since(self, earlier: StageTimes) -> StageTimes {
        StageTimes {
            integrate: self.integrate - earlier.integrate,
            neighbor: self.neighbor - earlier.neighbor,
            pairs: self.pairs - earlier.pairs,
            walls: self.walls - earlier.walls,
            gather: self.gather - earlier.gather,
            output: self.output - earlier.output,
        }
    }
}

impl std::fmt::Display for StageTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "integrate {:.2} s, neighbour {:.2} s, pairs {:.2} s, walls {:.2} s, gather {:.2} s, output {:.2} s",
            self.integrate, self.neighbor, self.pairs, self.walls, self.gather, self.output
        )
    }
}
