"""What the exact methods share: the problem as SymPy reads it (:mod:`~desyr_sympy.shared.forms`), profile
ansatzes, ODE answers, quadratures, the energy integral, disks and annuli, the undetermined-coefficients
basis, Cole-Hopf-type substitutions, and the candidates' free constants.  Every name here is public;
nothing here imports a method (:mod:`desyr_sympy.methods`)."""
