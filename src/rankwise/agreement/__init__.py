"""Agreement: how similar two rankings are, whether two system orderings agree, whether a reproduction succeeded.

Three questions asked after "which system is better" (issue #25):

* per query, how similar two rankings of the same query are (RBO in every named variant, Jaccard@k,
  overlap@k, Kendall's tau and tau_AP on the shared items), without judgments;
* whether two metrics, two sets of judgments or two collections order the systems the same way
  (tau-b, tau_AP, Spearman, Pearson with intervals over topics, swap rates, discriminative power);
* whether a reproduction succeeded (repro_eval's measures, with its defects fixed).
"""
