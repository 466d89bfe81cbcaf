// SPDX-License-Identifier: Apache-2.0
// The one table that drives the algorithm picker, its parameter forms, the spec sent to the
// engine and the shareable URL. Adding an algorithm of the library = adding one entry here.

export interface ParamDef {
  /** Field of the spec's "algorithm" object (and the URL key). */
  key: string;
  label: string;
  /** One line for someone who has never heard of ADMM. */
  help: string;
  min?: number;
  max?: number;
  /** Whole numbers only (step 1; otherwise step "any", src/limits.ts). */
  integer?: boolean;
  privacy?: boolean;
  /** Shown (and meaningful) only while a choice of the algorithm has this value. */
  when?: { choice: string; value: string };
}

/** A parameter with named values (a select), e.g. the baselines' mechanism. */
export interface ChoiceDef {
  key: string;
  label: string;
  help: string;
  options: { value: string; label: string }[];
}

export interface AlgorithmDef {
  name: string;
  title: string;
  summary: string;
  private: boolean;
  /** Parameters shown for this algorithm, with its own sensible defaults. */
  params: Record<string, number>;
  /** Its named-value parameters (CHOICES) and their defaults. */
  choices?: Record<string, string>;
  /** A baseline (local, average, central): released once, compared with the private ADMMs. */
  baseline?: boolean;
  /** Takes a target ε (`dpadmm run --target-epsilon`): the epsilon policy chooses its settings
   * and the calibration its noise (tools/calibration.h CanCalibrate, tools/epsilon_policy.h). */
  calibrates?: boolean;
}

export const PARAMS: Record<string, ParamDef> = {
  eta: {
    key: 'eta', label: 'penalty η', min: 1e-4,
    help: 'How strongly neighbours are pulled towards each other each round (M-ADMM: θ, the first penalty).',
  },
  C: {
    key: 'C', label: 'loss weight C', min: 1e-4,
    help: 'Weight of the training loss against the regulariser in the objective.',
  },
  rho: {
    key: 'rho', label: 'regulariser ρ', min: 1e-6,
    help: 'Weight of ||f||²/2: keeps the classifier small (and bounds the sensitivity for privacy).',
  },
  alpha: {
    key: 'alpha', label: 'privacy α per round', min: 0, privacy: true,
    help: 'Each node\'s privacy cost per round (ε-DP of one release): smaller = more noise, more privacy; 0 = no noise.',
  },
  q2: {
    key: 'q2', label: 'α growth q2', min: 1, privacy: true,
    help: 'α(t) = α·q2^(t−1): q2 > 1 adds less noise in later rounds, spending more privacy when the nodes nearly agree.',
  },
  q1: {
    key: 'q1', label: 'penalty growth q1', min: 1, privacy: true,
    help: 'η(t) grows as q1^t: a growing penalty damps the noise, so each round leaks less about any one record.',
  },
  gamma: {
    key: 'gamma', label: 'recycling γ', min: 0,
    help: 'R-ADMM/MR-ADMM: weight of the extra term in the even (recycled, data-free) rounds.',
  },
  dual_step: {
    key: 'dual_step', label: 'dual step', min: 0,
    help: 'M-ADMM: step of the dual update (0 = the first penalty η(1)).',
  },
  label_eps: {
    key: 'label_eps', label: 'label privacy ε', min: 0, privacy: true,
    help: 'PDML: each user flips their own label with probability 1/(1+e^ε) before any server sees it (ε-local DP; 0 = truthful).',
  },
  pdml_R: {
    key: 'pdml_R', label: 'objective noise R', min: 0, privacy: true,
    help: 'PDML: each server adds a random linear term of length at most R to its objective once (0 = none).',
  },
  pdml_V: {
    key: 'pdml_V', label: 'primal noise V', min: 0, privacy: true,
    help: 'PDML: standard deviation of the Gaussian noise on what a server sends in round 1 (0 = none).',
  },
  pdml_decay: {
    key: 'pdml_decay', label: 'noise decay', min: 0.01, max: 1, privacy: true,
    help: 'PDML: the primal noise variance shrinks by this factor every round.',
  },
  epsilon: {
    key: 'epsilon', label: 'privacy ε (one release)', min: 1e-3, privacy: true,
    help: 'Each node\'s ε for its single release in round 1 (central: the curator\'s, against everyone but the curator); the later rounds only reuse released values, at no further cost.',
  },
  delta: {
    key: 'delta', label: 'δ of the release', min: 1e-12, max: 0.5, privacy: true,
    when: { choice: 'mechanism', value: 'gaussian' },
    help: 'Gaussian mechanism: the probability that its ε guarantee fails; the noise is calibrated to (ε, δ).',
  },
  privacy_budget: {
    key: 'privacy_budget', label: 'privacy budget', min: 0, privacy: true,
    help: 'Stop before the round that would take the total privacy loss above this (0 = no limit).',
  },
};

export const CHOICES: Record<string, ChoiceDef> = {
  mechanism: {
    key: 'mechanism', label: 'mechanism',
    help: 'Objective perturbation: a random linear term in the node\'s problem before it is solved (pure ε-DP). Gaussian: Gaussian noise added to the exact solution ((ε, δ)-DP).',
    options: [
      { value: 'objective', label: 'objective (ε)' },
      { value: 'gaussian', label: 'Gaussian (ε, δ)' },
    ],
  },
};

const COMMON = { C: 1750, rho: 0.22 };
const BASELINE = { epsilon: 1, delta: 1e-5, ...COMMON };

export const ALGORITHMS: AlgorithmDef[] = [
  {
    name: 'admm', title: 'ADMM (not private)', private: false,
    summary: 'Decentralized consensus ADMM: each node solves a local problem and averages with its neighbours.',
    params: { eta: 0.5, ...COMMON },
  },
  {
    name: 'dvp', title: 'DVP: dual variable perturbation', private: true, calibrates: true,
    summary: 'Private ADMM that adds noise to each node\'s dual variable before its local update (004, Alg. 2).',
    params: { eta: 30, alpha: 0.15, q2: 1, privacy_budget: 0, ...COMMON },
  },
  {
    name: 'pvp', title: 'PVP: primal variable perturbation', private: true, calibrates: true,
    summary: 'Each node solves its update exactly and releases it with added noise.',
    params: { eta: 30, alpha: 0.15, q2: 1, privacy_budget: 0, ...COMMON },
  },
  {
    name: 'madmm', title: 'M-ADMM: growing private penalties', private: true, calibrates: true,
    summary: 'Penalty perturbation with a penalty that grows every round, so the noise matters less and less (002).',
    params: { eta: 200, q1: 1.02, alpha: 20, q2: 1, dual_step: 0, privacy_budget: 0, ...COMMON },
  },
  {
    name: 'radmm', title: 'R-ADMM: recycled ADMM (not private)', private: false,
    summary: 'Every second round reuses the last local result instead of touching the data (003, Alg. 1).',
    params: { eta: 1, gamma: 0.5, ...COMMON },
  },
  {
    name: 'mradmm', title: 'MR-ADMM: modified recycled ADMM (not private)', private: false,
    summary: 'Recycled ADMM with a penalty that grows in the data rounds (003, Alg. 2).',
    params: { eta: 1, q1: 1.04, gamma: 0.5, ...COMMON },
  },
  {
    name: 'private_mradmm', title: 'Private MR-ADMM', private: true, calibrates: true,
    summary: 'MR-ADMM with objective perturbation: only the data rounds spend privacy (003, Alg. 3).',
    params: { eta: 200, q1: 1.02, gamma: 0.5, alpha: 0.02, q2: 1, privacy_budget: 0, ...COMMON },
  },
  {
    name: 'pdml', title: 'PDML: private labels, private servers', private: true,
    summary: 'Users randomize their labels themselves; servers learn with a debiased loss and noisy objectives and messages (000). Here ρ is the paper\'s a and η its β (C = 1).',
    params: { eta: 0.1, C: 1, rho: 0.01, label_eps: 1, pdml_R: 1, pdml_V: 0.5, pdml_decay: 1 },
  },
  {
    name: 'local', title: 'Baseline local: every node alone (the floor)', private: true, baseline: true, calibrates: true,
    summary: 'Every node trains on its own rows only and releases its model once, with noise; no node uses a neighbour\'s message. The accuracy shown is the mean over the nodes\' own models: there is no consensus model.',
    params: { ...BASELINE }, choices: { mechanism: 'objective' },
  },
  {
    name: 'average', title: 'Baseline average: local releases, averaged', private: true, baseline: true, calibrates: true,
    summary: 'Every node releases its local model once (as local), then the nodes average the released models with their neighbours, round after round (gossip): no further privacy cost.',
    params: { ...BASELINE }, choices: { mechanism: 'objective' },
  },
  {
    name: 'central', title: 'Baseline central: one trusted curator (the ceiling)', private: true, baseline: true, calibrates: true,
    summary: 'NEEDS A CURATOR EVERY PARTY TRUSTS WITH ITS ROWS: all rows at one node, which trains once and releases one noisy model: the ceiling the decentralized algorithms are compared with at this ε, not a decentralized option.',
    params: { ...BASELINE }, choices: { mechanism: 'objective' },
  },
];

export function algorithmByName(name: string): AlgorithmDef {
  return ALGORITHMS.find((a) => a.name === name) ?? ALGORITHMS[0];
}

// --- Vertical partition: ADMM sharing (001) --------------------------------------------------
// Parameters of the sharing algorithms (algorithm.sharing / algorithm.sgd of `dpadmm run
// --algorithm sharing --print-config`); defaults are SharingParams' and SgdParams'.

export const SHARING_PARAMS: Record<string, ParamDef> = {
  lambda: {
    key: 'lambda', label: 'regulariser λ', min: 1e-8,
    help: 'Weight of Σ||x_m||²/2: keeps every party\'s block of the model small.',
  },
  rho: {
    key: 'rho', label: 'penalty ρ', min: 1e-8,
    help: 'ADMM penalty. The loss is an average over the N training rows: ρ ≈ 0.3/N … 1/N works well (default for N = 1,400).',
  },
  total_epsilon: {
    key: 'total_epsilon', label: 'privacy ε (whole run)', min: 1e-3, privacy: true,
    help: 'Each party\'s total privacy loss over all epochs (tight accounting: one Gaussian with μ² summed over the epochs); σ is calibrated to it.',
  },
  epsilon: {
    key: 'epsilon', label: 'ε per iteration (eq. (16) variant)', min: 1e-3, max: 1, privacy: true,
    help: 'Only for 001\'s eq. (16) (mechanism "paper16", NOT DP as stated: its noise is shaped by the private data): Theorem 3\'s per-iteration ε.',
  },
  delta: {
    key: 'delta', label: 'δ (whole run)', min: 1e-12, max: 0.5, privacy: true,
    help: 'Probability that the ε guarantee fails, per party over the run.',
  },
  b1: {
    key: 'b1', label: 'bound b1 on ||x_m||', min: 1e-6, privacy: true,
    help: 'Each party keeps ||x_m|| ≤ b1 (its update is constrained to the ball), so every partial score is at most b1 and the noise is calibrated to 2·b1·√N. Accuracy does not depend on the scale; too small a ball slows learning.',
  },
  noise_sigma: {
    key: 'noise_sigma', label: 'noise level σ', min: 0, privacy: true,
    help: '> 0: use this noise level for every party instead of the calibrated one; ε is then reported for it (tight). 0 = from ε.',
  },
  learning_rate: {
    key: 'learning_rate', label: 'learning rate', min: 1e-6,
    help: 'SGD step size in epoch 1.',
  },
  lr_decay: {
    key: 'lr_decay', label: 'step decay', min: 0,
    help: 'Step of epoch e = learning rate / (1 + decay·(e − 1)); 0 = constant.',
  },
  batch_size: {
    key: 'batch_size', label: 'batch size', min: 1, integer: true,
    help: 'Rows per SGD step: the parties send partial scores of one mini-batch at a time.',
  },
};

export interface SharingAlgorithmDef {
  name: string;
  title: string;
  summary: string;
  private: boolean;
  /** The spec's "algorithm" field and whether "dp" is on. */
  spec: { algorithm: 'admm' | 'sgd'; dp: boolean };
  params: Record<string, number>;
}

export const SHARING_ALGORITHMS: SharingAlgorithmDef[] = [
  {
    name: 'admm', title: 'ADMM sharing (not private)', private: false, spec: { algorithm: 'admm', dp: false },
    summary: 'Each party updates its own block of the model; they share only one partial score per row with the coordinator (001, Alg. 1).',
    params: { lambda: 1e-4, rho: 5e-4 },
  },
  {
    name: 'dp_admm', title: 'DP ADMM sharing', private: true, spec: { algorithm: 'admm', dp: true },
    summary: 'ADMM sharing where each party adds Gaussian noise N(0, σ²I) to every partial score it sends and keeps ||x_m|| ≤ b1; σ is calibrated so that the whole run is (ε, δ)-DP per party (tight accounting). Not 001\'s eq. (16), whose noise is shaped by the private data and is NOT DP as stated (available as mechanism "paper16" in `dpadmm run --dp-mechanism paper16`).',
    params: { lambda: 1e-4, rho: 5e-4, total_epsilon: 2, delta: 1e-5, b1: 100, noise_sigma: 0 },
  },
  {
    name: 'sgd', title: 'SGD baseline (not private)', private: false, spec: { algorithm: 'sgd', dp: false },
    summary: 'The SGD method for distributed features (001\'s baseline): mini-batch steps on the parties\' blocks.',
    params: { lambda: 1e-4, learning_rate: 0.5, lr_decay: 0, batch_size: 64 },
  },
];

export function sharingAlgorithmByName(name: string): SharingAlgorithmDef {
  return SHARING_ALGORITHMS.find((a) => a.name === name) ?? SHARING_ALGORITHMS[0];
}
